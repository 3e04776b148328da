#include "annotation.h"
#include "findingstyle.h"


#include <algorithm>

namespace rs {

QColor Annotation::effectiveColor() const
{
    if (color.isValid())
        return color;
    switch (kind) {
    case Kind::Note: return {0x7c, 0x3a, 0xed};  // violet: apart from rank colours and severities
    case Kind::Arrow: return {0x11, 0x18, 0x27}; // near black: reads on any span colour
    case Kind::Range: return {0x0e, 0x74, 0x90}; // teal
    }
    return Qt::black;
}

std::string findingKey(const Finding &finding)
{
    std::string key = finding.id;
    key += '|';
    for (std::size_t i = 0; i < finding.ranks.size(); ++i) {
        if (i)
            key += ',';
        key += std::to_string(finding.ranks[i]);
    }
    key += '|';
    if (finding.timeNs)
        key += std::to_string(*finding.timeNs);
    return key;
}

FindingNumbers findingNumbers(const AnalysisResult &result)
{
    FindingNumbers numbers;
    const std::vector<int> order = findingOrder(result);
    for (std::size_t i = 0; i < order.size(); ++i)
        numbers.emplace(findingKey(result.findings[static_cast<std::size_t>(order[i])]), static_cast<int>(i) + 1);
    return numbers;
}

int findingNumber(const FindingNumbers &numbers, const Annotation &annotation)
{
    if (annotation.origin != Annotation::Origin::Finding)
        return 0;
    const auto it = numbers.find(annotation.findingKey);
    return it != numbers.end() ? it->second : 0;
}

std::vector<Annotation> annotationsFromFindings(const AnalysisResult &result)
{
    std::vector<Annotation> out;
    for (const Finding &f : result.findings) {
        if (!f.timeNs)
            continue; // nowhere to put it on a time axis; the findings panel still lists it
        Annotation a;
        a.origin = Annotation::Origin::Finding;
        a.rank = f.ranks.size() == 1 ? f.ranks.front() : kNoRank;
        a.time = *f.timeNs;
        const bool range = f.endNs && *f.endNs > *f.timeNs;
        a.kind = range ? Annotation::Kind::Range : Annotation::Kind::Note;
        a.endTime = range ? *f.endNs : *f.timeNs;
        a.endRank = a.rank;
        a.text = QString::fromStdString(f.title);
        a.color = FindingStyle::severityColor(f.severity);
        a.findingKey = findingKey(f);
        out.push_back(std::move(a));
    }
    return out;
}

} // namespace rs
