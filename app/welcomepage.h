#pragma once
// The page shown when nothing is open, and the list of recently opened inputs it shares with
// File ▸ Open Recent. Recent entries live in QSettings; each is the list of paths opened together
// (or one .rankscope session file). Entries whose files were moved or deleted are dropped when the
// list is rebuilt, so neither the menu nor the page offers dead ends.

#include <QStringList>
#include <QWidget>

class QMenu;
class QVBoxLayout;

namespace rs {

class WelcomePage : public QWidget
{
    Q_OBJECT
public:
    /// Entries kept.
    static constexpr int kMaxRecent = 10;

    explicit WelcomePage(QWidget *parent = nullptr);

    /// Recent entries, newest first.
    static QList<QStringList> recentEntries();
    /// "a.json" or "a.json + 3 more".
    static QString entryLabel(const QStringList &paths);

    /// Records `paths` (made absolute) as the newest entry and refreshes the page and `menu`.
    void addRecent(const QStringList &paths);
    /// Fills `menu` (File ▸ Open Recent) from the entries; it is kept up to date from now on.
    void attachMenu(QMenu *menu);

Q_SIGNALS:
    /// A recent entry was picked (on the page or in the menu).
    void openRequested(const QStringList &paths);
    void openFilesRequested();
    void openFolderRequested();

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyTheme();
    bool m_theming = false;
    static void setRecentEntries(const QList<QStringList> &entries);
    void rebuild();

    QVBoxLayout *m_recent = nullptr;
    QMenu *m_menu = nullptr;
};

} // namespace rs
