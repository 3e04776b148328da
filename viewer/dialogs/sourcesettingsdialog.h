#pragma once
// What the user can decide about one input file: the rank of a single-rank file, the GPU index →
// rank table of a file that feeds several ranks (nvidia-smi), and the session-wide time zone of
// time stamps that carry none (nvidia-smi, logs). It works on plain values so the viewer never
// depends on the loader; the main window turns them into loader options and reloads.

#include "types.h"

#include <QDialog>
#include <QString>
#include <QStringList>

#include <map>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace rs {

/// Everything the dialog shows and returns.
struct SourceSettings {
    QString path;                       ///< the file, as the session names it
    QString format;                     ///< its format id ("nvidia-smi"), shown in the heading
    bool multiRank = false;             ///< feeds several ranks: edit `rankMap` rather than one rank

    // Single-rank files.
    RankId currentRank = kNoRank;       ///< the rank it has in the current session
    QString rankOrigin;                 ///< where that rank came from, in words ("the file name")
    std::optional<RankId> rankOverride; ///< the user's rank; nullopt: decided automatically

    // Multi-rank files.
    QString mapKeyName;                 ///< what the map's keys are ("GPU index", "Rank in the file")
    QString mapOrigin;                  ///< where the current mapping came from, in words
    std::map<int, RankId> currentMap;   ///< key → rank as the current session has it (pre-fills the table)
    std::optional<std::map<int, RankId>> rankMap; ///< the user's map; nullopt: decided automatically

    // The whole session.
    QString timeZone;                   ///< IANA id for zone-less time stamps; empty: this machine's zone
    QStringList zoneSources;            ///< names of the loaded files the zone applies to
};

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
