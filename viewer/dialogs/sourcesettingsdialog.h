#pragma once
// Asks what the user decides about one input file (SourceSettings): the rank of a single-rank
// file, the GPU index → rank table of a file that feeds several ranks (nvidia-smi), and the
// session-wide time zone of time stamps that carry none (nvidia-smi, logs). The main window turns
// the answer into loader options and reloads.

#include "sourcesettings.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace rs {

class SourceSettingsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit SourceSettingsDialog(const SourceSettings &settings, QWidget *parent = nullptr);

    /// The settings as edited. A map equal to the automatic one is returned as nullopt (automatic)
    /// unless the user had set it before, so opening and applying changes nothing.
    SourceSettings settings() const;

    QCheckBox *overrideCheck() const { return m_override; }
    QSpinBox *rankSpin() const { return m_rank; }
    QTableWidget *mapTable() const { return m_map; }
    QComboBox *timeZoneCombo() const { return m_zone; }
    /// The rank spin box of map row `row`, or nullptr.
    QSpinBox *mapRankSpin(int row) const;

    void accept() override;

private:
    QWidget *createRankGroup();
    QWidget *createMapGroup();
    QWidget *createZoneGroup();
    std::map<int, RankId> editedMap() const;
    void updateMapWarning();
    QString zoneId() const;

    SourceSettings m_in;
    bool m_mapReset = false; // "Automatic" was pressed: the user's map is dropped
    QCheckBox *m_override = nullptr;
    QSpinBox *m_rank = nullptr;
    QTableWidget *m_map = nullptr;
    QLabel *m_mapWarning = nullptr;
    QComboBox *m_zone = nullptr;
    QLabel *m_error = nullptr;
};

} // namespace rs
