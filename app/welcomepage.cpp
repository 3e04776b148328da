#include "welcomepage.h"

#include "palette.h"

#include <QEvent>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

#include <algorithm>

namespace rs {

namespace {

const QString kRecentKey = QStringLiteral("recent/entries");
// Paths opened together are stored as one string; a newline never appears in a path we accept.
const QChar kPathSeparator = QLatin1Char('\n');

} // namespace

void WelcomePage::applyTheme()
{
    // The screen palette's colours, so the page is dark on a dark desktop like the timeline.
    const Palette &c = Palette::screen();
    setStyleSheet(QStringLiteral("#welcome { background: %1; }"
                                 "QLabel#title { font-size: 26px; font-weight: 600; color: %2; }"
                                 "QLabel#hint { font-size: 14px; color: %3; }"
                                 "QLabel#nothing { color: %4; }"
                                 "QLabel#recentTitle { font-size: 13px; font-weight: 600; color: %2; margin-top: 18px; }"
                                 "QPushButton[recent=\"true\"] { text-align: left; border: none; color: %5; padding: 3px 0; font-size: 13px; }"
                                 "QPushButton[recent=\"true\"]:hover { text-decoration: underline; }")
                      .arg(c.css(Palette::Role::Gutter), c.css(Palette::Role::ChromeText), c.css(Palette::Role::AxisText),
                           c.css(Palette::Role::Muted), c.css(Palette::Role::Link)));
}

void WelcomePage::changeEvent(QEvent *event)
{
    if ((event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange) && !m_theming) {
        m_theming = true; // a new style sheet sends change events of its own
        applyTheme();
        m_theming = false;
    }
    QWidget::changeEvent(event);
}

WelcomePage::WelcomePage(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("welcome"));
    setAttribute(Qt::WA_StyledBackground);
    applyTheme();
    auto *title = new QLabel(tr("RankScope"));
    title->setObjectName(QStringLiteral("title"));
    auto *hint = new QLabel(tr("Drop everything a failed job left behind — per-rank profiler traces, memory "
                               "summaries, nvidia-smi CSVs, NCCL and torchrun logs, allocator snapshots — "
                               "or a whole folder, or a saved .rankscope session, anywhere in this window."));
    hint->setObjectName(QStringLiteral("hint"));
    hint->setWordWrap(true);
    auto *openFiles = new QPushButton(tr("Open Files…"));
    connect(openFiles, &QPushButton::clicked, this, &WelcomePage::openFilesRequested);
    auto *openFolder = new QPushButton(tr("Open Folder…"));
    connect(openFolder, &QPushButton::clicked, this, &WelcomePage::openFolderRequested);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(openFiles);
    buttons->addWidget(openFolder);
    buttons->addStretch(1);
    auto *recentTitle = new QLabel(tr("Recent"));
    recentTitle->setObjectName(QStringLiteral("recentTitle"));
    m_recent = new QVBoxLayout;
    m_recent->setSpacing(0);

    auto *column = new QVBoxLayout;
    column->addStretch(2);
    column->addWidget(title);
    column->addSpacing(8);
    column->addWidget(hint);
    column->addSpacing(16);
    column->addLayout(buttons);
    column->addWidget(recentTitle);
    column->addLayout(m_recent);
    column->addStretch(3);
    auto *outer = new QHBoxLayout(this);
    outer->addStretch(1);
    outer->addLayout(column, 3);
    outer->addStretch(1);
    rebuild();
}

QString WelcomePage::entryLabel(const QStringList &paths)
{
    if (paths.isEmpty())
        return {};
    // A folder shows as "name/": "incident/" and "incident.rankscope" are different things to open.
    const QFileInfo info(QDir::cleanPath(paths.front()));
    const QString first = info.isDir() ? info.fileName() + QLatin1Char('/') : info.fileName();
    return paths.size() == 1 ? first : tr("%1 + %2 more").arg(first).arg(paths.size() - 1);
}

QList<QStringList> WelcomePage::recentEntries()
{
    QList<QStringList> out;
    for (const QString &e : QSettings().value(kRecentKey).toStringList())
        out << e.split(kPathSeparator, Qt::SkipEmptyParts);
    return out;
}

void WelcomePage::setRecentEntries(const QList<QStringList> &entries)
{
    QStringList flat;
    for (const QStringList &e : entries)
        flat << e.join(kPathSeparator);
    QSettings().setValue(kRecentKey, flat);
}

void WelcomePage::addRecent(const QStringList &paths)
{
    QStringList absolute;
    for (const QString &p : paths)
        absolute << QDir::cleanPath(QFileInfo(p).absoluteFilePath()); // "demo/" and "demo" are one entry
    QList<QStringList> entries = recentEntries();
    entries.removeAll(absolute);
    entries.prepend(absolute);
    while (entries.size() > kMaxRecent)
        entries.removeLast();
    setRecentEntries(entries);
    rebuild();
}

void WelcomePage::attachMenu(QMenu *menu)
{
    m_menu = menu;
    rebuild();
}

void WelcomePage::rebuild()
{
    QList<QStringList> kept;
    for (QStringList entry : recentEntries()) {
        entry.erase(std::remove_if(entry.begin(), entry.end(), [](const QString &p) { return !QFileInfo::exists(p); }),
                    entry.end());
        if (!entry.isEmpty() && !kept.contains(entry))
            kept << entry;
    }
    if (kept != recentEntries())
        setRecentEntries(kept);

    if (m_menu) {
        m_menu->clear();
        for (int i = 0; i < kept.size(); ++i) {
            const QStringList entry = kept[i];
            QAction *a = m_menu->addAction(QStringLiteral("&%1  %2").arg((i + 1) % 10).arg(entryLabel(entry)));
            a->setToolTip(entry.join(QLatin1Char('\n')));
            connect(a, &QAction::triggered, this, [this, entry] { Q_EMIT openRequested(entry); });
        }
        if (!kept.isEmpty()) {
            m_menu->addSeparator();
            m_menu->addAction(tr("Clear Menu"), this, [this] {
                setRecentEntries({});
                rebuild();
            });
        }
        m_menu->setEnabled(!kept.isEmpty());
    }

    while (QLayoutItem *item = m_recent->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    if (kept.isEmpty()) {
        auto *none = new QLabel(tr("Nothing opened yet."));
        none->setObjectName(QStringLiteral("nothing"));
        m_recent->addWidget(none);
        return;
    }
    for (const QStringList &entry : kept) {
        auto *b = new QPushButton(entryLabel(entry) + QStringLiteral("   —   ") + QFileInfo(entry.front()).absolutePath());
        b->setProperty("recent", true);
        b->setCursor(Qt::PointingHandCursor);
        b->setToolTip(entry.join(QLatin1Char('\n')));
        connect(b, &QPushButton::clicked, this, [this, entry] { Q_EMIT openRequested(entry); });
        m_recent->addWidget(b);
    }
}

} // namespace rs
