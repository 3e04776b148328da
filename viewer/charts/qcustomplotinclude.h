#pragma once
// qcustomplot.h uses Qt's lowercase keywords (signals, slots, foreach), which QT_NO_KEYWORDS (set
// project-wide) removes. Every viewer file includes QCustomPlot through here, which restores the
// keywords for that one header only.

#ifdef QT_NO_KEYWORDS
#define signals Q_SIGNALS
#define slots Q_SLOTS
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef foreach
#else
#include <qcustomplot.h>
#endif
