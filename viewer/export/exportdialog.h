#pragma once
// File ▸ Export view…: asks for the view (the timeline, or every rank against the reference rank
// as on the Compare Ranks tab), the format (PNG, SVG, PDF), the file, the size (and the
// device-pixel ratio of a PNG), the title, the window (the visible one or the whole session), the
// ranks (those shown or all), whether findings are included (numbered markers and their list) and
// the lane detail (the last two for the timeline only), with a live preview. Defaults come from the
// current view (the view itself from the tab shown) and the last export (QSettings).

#include "figureexporter.h"
#include "figureoptions.h"

#include <QDialog>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QRadioButton;
class QSpinBox;
class QTimer;

namespace rs {

class ExportDialog : public QDialog
{
    Q_OBJECT
public:
    /// `view` is what the screen shows: FigureOptions::fromView plus every annotation (user and
    /// finding ones); `analysis` may be null.
    ExportDialog(SessionPtr session, std::shared_ptr<const AnalysisResult> analysis, const FigureOptions &view,
                 QWidget *parent = nullptr);

    /// The file to write, its suffix matching format().
    QString path() const;
    FigureExporter::Format format() const;
    /// The figure as chosen: the view's options with the dialog's choices applied.
    FigureOptions options() const;

    QComboBox *viewCombo() const { return m_viewCombo; }
    QComboBox *formatCombo() const { return m_format; }
    QLineEdit *pathEdit() const { return m_path; }
    QSpinBox *widthSpin() const { return m_width; }
    QSpinBox *heightSpin() const { return m_height; }
    QDoubleSpinBox *dprSpin() const { return m_dpr; }
    QLineEdit *titleEdit() const { return m_title; }
    QRadioButton *visibleRangeButton() const { return m_visibleRange; }
    QRadioButton *shownRanksButton() const { return m_shownRanks; }
    QCheckBox *findingsCheck() const { return m_findings; }
    QComboBox *detailCombo() const { return m_detail; }
    QLabel *previewLabel() const { return m_preview; }

    /// Validates the path (adds the format's suffix when missing), remembers the choices, closes.
    void accept() override;

private:
    void browse();
    void formatChanged();
    void viewChanged();
    FigureOptions::View chosenView() const;
    void schedulePreview();
    void updatePreview();

    SessionPtr m_session;
    std::shared_ptr<const AnalysisResult> m_analysis;
    FigureOptions m_view;
    QComboBox *m_viewCombo = nullptr;
    QComboBox *m_format = nullptr;
    QLineEdit *m_path = nullptr;
    QSpinBox *m_width = nullptr;
    QSpinBox *m_height = nullptr;
    QDoubleSpinBox *m_dpr = nullptr;
    QLineEdit *m_title = nullptr;
    QRadioButton *m_visibleRange = nullptr;
    QRadioButton *m_fullRange = nullptr;
    QRadioButton *m_shownRanks = nullptr;
    QRadioButton *m_allRanks = nullptr;
    QCheckBox *m_findings = nullptr;
    QComboBox *m_detail = nullptr;
    QLabel *m_preview = nullptr;
    QLabel *m_sizeNote = nullptr;
    QTimer *m_previewTimer = nullptr;
};

} // namespace rs
