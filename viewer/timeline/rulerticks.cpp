#include "rulerticks.h"

#include "timeformat.h"

namespace rs {

namespace {

TimeNs floorDiv(TimeNs a, TimeNs b)
{
    const TimeNs q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

} // namespace

RulerTicks RulerTicks::compute(TimeRange visible, TimeNs origin, double widthPx, int minSpacingPx)
{
    RulerTicks t;
    if (visible.isEmpty() || widthPx <= 0)
        return t;
    t.step = TimeFormat::niceStep(static_cast<double>(visible.duration()) * minSpacingPx / widthPx);
    t.majorStep = 1;
    while (t.majorStep <= t.step)
        t.majorStep *= 10;
    TimeNs lead = t.step;
    while (lead >= 10)
        lead /= 10;
    t.subdivisions = lead == 2 ? 4 : 5;
    if (t.step < t.subdivisions)
        t.subdivisions = 1;

    // Major labels share one unit, picked from the largest time in view, so a row never mixes
    // "900 ms" and "1.0 s".
    const TimeNs relBegin = visible.begin - origin;
    const TimeNs relEnd = visible.end - origin;
    const TimeNs magnitude = std::max(relBegin < 0 ? -relBegin : relBegin, relEnd < 0 ? -relEnd : relEnd);

    const TimeNs contextRel = floorDiv(relBegin, t.majorStep) * t.majorStep;
    t.context = {origin + contextRel, TimeFormat::tick(contextRel, t.majorStep, magnitude)};

    for (TimeNs k = floorDiv(relBegin + t.step - 1, t.step); origin + k * t.step < visible.end; ++k) {
        const TimeNs rel = k * t.step;
        if (rel % t.majorStep == 0) {
            t.major.push_back({origin + rel, TimeFormat::tick(rel, t.majorStep, magnitude)});
        } else {
            const TimeNs sinceMajor = rel - floorDiv(rel, t.majorStep) * t.majorStep;
            t.minor.push_back({origin + rel, TimeFormat::offset(sinceMajor, t.step)});
        }
    }
    return t;
}

} // namespace rs
