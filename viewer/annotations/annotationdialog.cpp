#include "annotationdialog.h"

#include <QButtonGroup>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QToolButton>
#include <QVBoxLayout>

namespace rs {

namespace {

QIcon swatch(const QColor &color, bool isDefault)
{
    QPixmap pm(18, 18);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(color.darker(130), 1));
    p.setBrush(color);
    p.drawEllipse(QRectF(2, 2, 14, 14));
    if (isDefault) { // the kind's own colour: marked so it reads as "automatic"
        p.setPen(QPen(Qt::white, 1.6));
        p.drawLine(QPointF(6, 9), QPointF(12, 9));
    }
    return QIcon(pm);
}

QString kindTitle(Annotation::Kind kind)
{
    switch (kind) {
    case Annotation::Kind::Note: return AnnotationDialog::tr("Note");
    case Annotation::Kind::Arrow: return AnnotationDialog::tr("Arrow");
    case Annotation::Kind::Range: return AnnotationDialog::tr("Range");
    }
    return {};
}

} // namespace

const std::vector<QColor> &AnnotationDialog::presetColors()
{
    static const std::vector<QColor> colors{
        {0x7c, 0x3a, 0xed}, // violet
        {0x0e, 0x74, 0x90}, // teal
        {0x11, 0x18, 0x27}, // near black
        {0xdb, 0x27, 0x77}, // pink
        {0x65, 0xa3, 0x0d}, // lime
        {0xb4, 0x53, 0x09}, // brown
    };
    return colors;
}

AnnotationDialog::AnnotationDialog(const Annotation &annotation, QWidget *parent)
    : QDialog(parent)
    , m_annotation(annotation)
{
    setWindowTitle(tr("Edit %1").arg(kindTitle(annotation.kind).toLower()));
    m_text = new QPlainTextEdit(annotation.text);
    m_text->setPlaceholderText(annotation.kind == Annotation::Kind::Note ? tr("What happened here") : tr("Label (optional)"));
    m_text->setTabChangesFocus(true);
    m_text->setMinimumSize(320, annotation.kind == Annotation::Kind::Note ? 90 : 54);

    m_colors = new QButtonGroup(this);
    m_colors->setExclusive(true);
    auto *colorRow = new QHBoxLayout;
    colorRow->setSpacing(2);
    Annotation plain = annotation;
    plain.color = QColor();
    std::vector<QColor> choices{QColor()};
    for (const QColor &c : presetColors())
        if (c != plain.effectiveColor())
            choices.push_back(c);
    if (annotation.color.isValid() && std::find(choices.begin(), choices.end(), annotation.color) == choices.end()
        && annotation.color != plain.effectiveColor())
        choices.push_back(annotation.color); // a finding's severity colour stays choosable
    for (std::size_t i = 0; i < choices.size(); ++i) {
        auto *b = new QToolButton;
        b->setCheckable(true);
        b->setAutoRaise(true);
        b->setIcon(swatch(choices[i].isValid() ? choices[i] : plain.effectiveColor(), !choices[i].isValid()));
        b->setToolTip(choices[i].isValid() ? choices[i].name() : tr("Default colour"));
        b->setProperty("annotationColor", choices[i]);
        const bool current = choices[i].isValid() ? annotation.color == choices[i]
                                                  : (!annotation.color.isValid() || annotation.color == plain.effectiveColor());
        b->setChecked(current);
        m_colors->addButton(b, static_cast<int>(i));
        colorRow->addWidget(b);
    }
    colorRow->addStretch(1);

    auto *form = new QFormLayout;
    form->addRow(tr("Text"), m_text);
    form->addRow(tr("Colour"), colorRow);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    m_text->setFocus();
    m_text->selectAll();
}

Annotation AnnotationDialog::annotation() const
{
    Annotation a = m_annotation;
    a.text = m_text->toPlainText().trimmed();
    if (QAbstractButton *b = m_colors->checkedButton())
        a.color = b->property("annotationColor").value<QColor>();
    return a;
}

bool AnnotationDialog::edit(QWidget *parent, Annotation &annotation)
{
    AnnotationDialog dialog(annotation, parent);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    annotation = dialog.annotation();
    return true;
}

} // namespace rs
