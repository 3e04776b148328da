#pragma once
// The small editor of one annotation: its text and its colour. Used by the timeline (double-click,
// "Add note here…") and the Annotations panel (Edit…).

#include "annotation.h"

#include <QDialog>

class QButtonGroup;
class QPlainTextEdit;

namespace rs {

class AnnotationDialog : public QDialog
{
    Q_OBJECT
public:
    /// Colours offered besides the kind's default: distinct from rank colours and severities.
    static const std::vector<QColor> &presetColors();

    explicit AnnotationDialog(const Annotation &annotation, QWidget *parent = nullptr);

    /// The annotation given, with the text and colour chosen.
    Annotation annotation() const;
    /// Opens the dialog on `annotation`; true (and `annotation` updated) when accepted.
    static bool edit(QWidget *parent, Annotation &annotation);

private:
    Annotation m_annotation;
    QPlainTextEdit *m_text;
    QButtonGroup *m_colors;
};

} // namespace rs
