#pragma once
// How a finding looks wherever it is shown: the timeline's numbered badges, the findings panel, an
// exported figure's badges, list and legend, and the annotations made from findings. Its number is
// findingNumbers() (annotations/annotation.h); its colour and words are here. One header that the
// models, annotations, timeline and export folders all include, so none of them includes another
// for a colour.

#include "analysisresult.h"

#include <QColor>
#include <QString>

namespace rs::FindingStyle {

/// The severity's colour: red, amber, blue, grey for High, Medium, Low, Info.
QColor severityColor(Severity s);
/// "High", "Medium", "Low", "Info".
QString severityLabel(Severity s);
/// "High", "Med", "Low", "Info": the findings panel's compact severity column.
QString severityShortLabel(Severity s);

} // namespace rs::FindingStyle
