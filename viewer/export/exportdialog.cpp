#include "exportdialog.h"

#include <algorithm>

#include "figure.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

namespace rs {

namespace {

constexpr int kPreviewWidth = 440;
constexpr int kPreviewHeight = 440;

QString settingsKey(const char *name)
{
    return QStringLiteral("export/") + QLatin1String(name);
}

// The file name offered for a view: "rankscope-timeline" or "rankscope-compare".
QString baseName(FigureOptions::View view)
{
    return view == FigureOptions::View::Compare ? QStringLiteral("rankscope-compare") : QStringLiteral("rankscope-timeline");
}

} // namespace

ExportDialog::ExportDialog(SessionPtr session, std::shared_ptr<const AnalysisResult> analysis, const FigureOptions &view,
                           QWidget *parent)
    : QDialog(parent)
    , m_session(std::move(session))
    , m_analysis(std::move(analysis))
    , m_view(view)
{
    setWindowTitle(tr("Export view"));
    QSettings settings;

    // The view comes from the tab the export started on, never from the last export: exporting on
    // the Compare Ranks tab means the compare figure.
    m_viewCombo = new QComboBox(this);
    m_viewCombo->addItem(tr("Timeline"), static_cast<int>(FigureOptions::View::Timeline));
    m_viewCombo->addItem(tr("Compare ranks (memory per rank, metrics against the reference)"), static_cast<int>(FigureOptions::View::Compare));
    m_viewCombo->setCurrentIndex(view.view == FigureOptions::View::Compare ? 1 : 0);

    m_format = new QComboBox(this);
    m_format->addItem(tr("PNG image"), static_cast<int>(FigureExporter::Format::Png));
    m_format->addItem(tr("SVG drawing (text stays text)"), static_cast<int>(FigureExporter::Format::Svg));
    m_format->addItem(tr("PDF document (one page)"), static_cast<int>(FigureExporter::Format::Pdf));
    m_format->setCurrentIndex(std::clamp(settings.value(settingsKey("format"), 0).toInt(), 0, 2));

    m_path = new QLineEdit(this);
    // The last folder exported to, else the incident's own folder (where its files are).
    QString incidentDir = QDir::homePath();
    if (session && !session->sources().empty())
        incidentDir = QFileInfo(QString::fromStdString(session->sources().front().path)).absolutePath();
    const QString dir = settings.value(settingsKey("dir"), incidentDir).toString();
    m_path->setText(QDir(dir).filePath(baseName(view.view) + QLatin1Char('.') + FigureExporter::suffix(format())));
    auto *browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    auto *pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browse);

    m_width = new QSpinBox(this);
    m_width->setRange(320, 20000);
    m_width->setSuffix(tr(" px"));
    m_width->setValue(settings.value(settingsKey("width"), view.width > 0 ? view.width : 1600).toInt());
    m_height = new QSpinBox(this);
    m_height->setRange(0, 20000);
    m_height->setSuffix(tr(" px"));
    m_height->setSpecialValueText(tr("fit content"));
    m_height->setValue(settings.value(settingsKey("height"), 0).toInt());
    m_dpr = new QDoubleSpinBox(this);
    m_dpr->setRange(0.5, 4.0);
    m_dpr->setSingleStep(0.5);
    m_dpr->setDecimals(1);
    m_dpr->setPrefix(QStringLiteral("× "));
    m_dpr->setValue(settings.value(settingsKey("dpr"), 2.0).toDouble());
    m_dpr->setToolTip(tr("Pixels per logical pixel of the PNG: 2 stays sharp on high-density screens"));
    auto *sizeRow = new QHBoxLayout;
    sizeRow->addWidget(m_width);
    sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
    sizeRow->addWidget(m_height);
    sizeRow->addSpacing(12);
    sizeRow->addWidget(new QLabel(tr("Pixel ratio"), this));
    sizeRow->addWidget(m_dpr);
    sizeRow->addStretch(1);
    m_sizeNote = new QLabel(this);
    m_sizeNote->setStyleSheet(QStringLiteral("color: palette(mid)"));

    m_title = new QLineEdit(this);
    m_title->setText(view.title);

    m_visibleRange = new QRadioButton(tr("Visible window"), this);
    m_fullRange = new QRadioButton(tr("Whole session"), this);
    // Radio buttons of one parent are one exclusive set unless grouped: without the groups,
    // choosing the ranks would clear the time-range choice.
    auto *rangeGroup = new QButtonGroup(this);
    rangeGroup->addButton(m_visibleRange);
    rangeGroup->addButton(m_fullRange);
    (view.range.isEmpty() ? m_fullRange : m_visibleRange)->setChecked(true);
    m_visibleRange->setEnabled(!view.range.isEmpty());
    auto *rangeRow = new QHBoxLayout;
    rangeRow->addWidget(m_visibleRange);
    rangeRow->addWidget(m_fullRange);
    rangeRow->addStretch(1);

    m_shownRanks = new QRadioButton(tr("Shown ranks (%1)").arg(view.ranks.empty() ? (m_session ? m_session->ranks().size() : 0) : view.ranks.size()), this);
    m_allRanks = new QRadioButton(tr("All ranks (%1)").arg(m_session ? m_session->ranks().size() : 0), this);
    auto *ranksGroup = new QButtonGroup(this);
    ranksGroup->addButton(m_shownRanks);
    ranksGroup->addButton(m_allRanks);
    m_shownRanks->setChecked(true);
    auto *ranksRow = new QHBoxLayout;
    ranksRow->addWidget(m_shownRanks);
    ranksRow->addWidget(m_allRanks);
    ranksRow->addStretch(1);

    m_findings = new QCheckBox(tr("Include findings (numbered on the lanes, listed below)"), this);
    m_findings->setChecked(settings.value(settingsKey("findings"), true).toBool());
    m_detail = new QComboBox(this);
    m_detail->addItem(tr("Compact: memory, steps, GPU streams, log"), static_cast<int>(FigureOptions::Detail::Compact));
    m_detail->addItem(tr("Full: every lane, as on screen"), static_cast<int>(FigureOptions::Detail::Full));
    m_detail->setCurrentIndex(settings.value(settingsKey("detail"), 0).toInt() == 1 ? 1 : 0);

    m_preview = new QLabel(this);
    m_preview->setMinimumSize(kPreviewWidth + 8, kPreviewHeight + 8);
    // The pixmap must not drive the layout (a tall figure would stretch the dialog).
    m_preview->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    m_preview->setAlignment(Qt::AlignCenter);
    m_preview->setFrameShape(QFrame::StyledPanel);

    auto *form = new QFormLayout;
    form->addRow(tr("View"), m_viewCombo);
    form->addRow(tr("Format"), m_format);
    form->addRow(tr("File"), pathRow);
    form->addRow(tr("Size"), sizeRow);
    form->addRow(QString(), m_sizeNote);
    form->addRow(tr("Title"), m_title);
    form->addRow(tr("Time range"), rangeRow);
    form->addRow(tr("Ranks"), ranksRow);
    form->addRow(tr("Lanes"), m_detail);
    form->addRow(QString(), m_findings);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
    connect(buttons, &QDialogButtonBox::accepted, this, &ExportDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &ExportDialog::reject);
    // Choices on the left, the figure as it will be written on the right: figures are tall.
    auto *columns = new QHBoxLayout;
    auto *left = new QVBoxLayout;
    left->addLayout(form);
    left->addStretch(1);
    columns->addLayout(left);
    columns->addWidget(m_preview, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(columns, 1);
    layout->addWidget(buttons);

    m_previewTimer = new QTimer(this);
    m_previewTimer->setSingleShot(true);
    m_previewTimer->setInterval(150);
    connect(m_previewTimer, &QTimer::timeout, this, &ExportDialog::updatePreview);
    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportDialog::formatChanged);
    connect(m_viewCombo, &QComboBox::currentIndexChanged, this, &ExportDialog::viewChanged);
    for (QSpinBox *s : {m_width, m_height})
        connect(s, &QSpinBox::valueChanged, this, &ExportDialog::schedulePreview);
    connect(m_dpr, &QDoubleSpinBox::valueChanged, this, &ExportDialog::schedulePreview);
    connect(m_title, &QLineEdit::textChanged, this, &ExportDialog::schedulePreview);
    for (QRadioButton *b : {m_visibleRange, m_fullRange, m_shownRanks, m_allRanks})
        connect(b, &QRadioButton::toggled, this, &ExportDialog::schedulePreview);
    connect(m_findings, &QCheckBox::toggled, this, &ExportDialog::schedulePreview);
    connect(m_detail, &QComboBox::currentIndexChanged, this, &ExportDialog::schedulePreview);
    formatChanged();
    viewChanged();
    updatePreview();
}

FigureOptions::View ExportDialog::chosenView() const
{
    return static_cast<FigureOptions::View>(m_viewCombo->currentData().toInt());
}

void ExportDialog::viewChanged()
{
    const FigureOptions::View v = chosenView();
    // Lanes and finding markers belong to the timeline; the compare figure has neither.
    m_detail->setEnabled(v == FigureOptions::View::Timeline);
    m_findings->setEnabled(v == FigureOptions::View::Timeline);
    // The offered file name follows the view unless the person named the file themselves.
    const QFileInfo info(m_path->text().trimmed());
    const FigureOptions::View other = v == FigureOptions::View::Compare ? FigureOptions::View::Timeline : FigureOptions::View::Compare;
    if (info.completeBaseName() == baseName(other))
        m_path->setText(info.dir().filePath(baseName(v) + QLatin1Char('.') + FigureExporter::suffix(format())));
    m_title->setPlaceholderText(Figure::make(m_session, m_analysis, options())->title());
    schedulePreview();
}

FigureExporter::Format ExportDialog::format() const
{
    return static_cast<FigureExporter::Format>(m_format->currentData().toInt());
}

QString ExportDialog::path() const
{
    QString p = m_path->text().trimmed();
    if (p.isEmpty())
        return p;
    if (FigureExporter::formatForPath(p) != format()) {
        // A path typed with another figure suffix gets the chosen one instead; any other suffix is
        // kept as part of the name.
        if (FigureExporter::formatForPath(p))
            p.chop(QFileInfo(p).suffix().size() + 1);
        p += QLatin1Char('.') + FigureExporter::suffix(format());
    }
    return p;
}

FigureOptions ExportDialog::options() const
{
    FigureOptions o = m_view;
    o.view = chosenView();
    o.width = m_width->value();
    o.height = m_height->value();
    o.devicePixelRatio = format() == FigureExporter::Format::Png ? m_dpr->value() : 1.0;
    o.title = m_title->text().trimmed();
    if (m_fullRange->isChecked())
        o.range = {};
    if (m_allRanks->isChecked())
        o.ranks.clear();
    if (!m_findings->isChecked()) {
        // No findings at all: neither their markers nor the list of the ones without a time.
        std::erase_if(o.annotations, [](const Annotation &a) { return a.origin == Annotation::Origin::Finding; });
        o.findings = false;
    }
    o.detail = static_cast<FigureOptions::Detail>(m_detail->currentData().toInt());
    return o;
}

void ExportDialog::browse()
{
    const QString filter = format() == FigureExporter::Format::Png   ? tr("PNG images (*.png)")
                           : format() == FigureExporter::Format::Svg ? tr("SVG drawings (*.svg)")
                                                                     : tr("PDF documents (*.pdf)");
    const QString chosen = QFileDialog::getSaveFileName(this, tr("Export view"), path(), filter);
    if (!chosen.isEmpty())
        m_path->setText(chosen);
}

void ExportDialog::formatChanged()
{
    m_dpr->setEnabled(format() == FigureExporter::Format::Png);
    if (!m_path->text().trimmed().isEmpty())
        m_path->setText(path());
    schedulePreview();
}

void ExportDialog::schedulePreview()
{
    m_previewTimer->start();
}

void ExportDialog::updatePreview()
{
    FigureOptions o = options();
    const QSize size = Figure::make(m_session, m_analysis, o)->size();
    const double dpr = o.devicePixelRatio;
    m_sizeNote->setText(format() == FigureExporter::Format::Png
                            ? tr("%1 × %2 pixels").arg(qRound(size.width() * dpr)).arg(qRound(size.height() * dpr))
                            : tr("%1 × %2 points").arg(qRound(size.width() * 0.75)).arg(qRound(size.height() * 0.75)));
    // The preview is the real figure scaled down to fit the preview box (width and height), so
    // what is seen is what is written. Rendering at a fraction of the size keeps it quick.
    const double screen = devicePixelRatioF();
    const QSize box = QSize(kPreviewWidth, kPreviewHeight) * screen;
    const double fit = std::min(double(box.width()) / size.width(), double(box.height()) / size.height());
    o.devicePixelRatio = std::clamp(fit * 1.5, 0.05, 1.0); // a little oversampling, then smooth scaling
    QImage img = FigureExporter(m_session, m_analysis).image(o);
    img.setDevicePixelRatio(1.0);
    img = img.scaled(box, Qt::KeepAspectRatio, Qt::SmoothTransformation);
    img.setDevicePixelRatio(screen);
    m_preview->setPixmap(QPixmap::fromImage(img));
}

void ExportDialog::accept()
{
    const QString p = path();
    if (p.isEmpty()) {
        QMessageBox::warning(this, tr("Export view"), tr("Choose a file to write."));
        return;
    }
    m_path->setText(p);
    QSettings settings;
    settings.setValue(settingsKey("format"), m_format->currentIndex());
    settings.setValue(settingsKey("dir"), QFileInfo(p).absolutePath());
    settings.setValue(settingsKey("width"), m_width->value());
    settings.setValue(settingsKey("height"), m_height->value());
    settings.setValue(settingsKey("dpr"), m_dpr->value());
    settings.setValue(settingsKey("findings"), m_findings->isChecked());
    settings.setValue(settingsKey("detail"), m_detail->currentIndex());
    QDialog::accept();
}

} // namespace rs
