#include "detailspanel.h"

#include "palette.h"

#include "placements.h"

#include "logstyle.h"
#include "plural.h"
#include "rankcolors.h"
#include "timeformat.h"
#include "timeline/lanelayout.h"
#include "timeline/spanpalette.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFileInfo>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>
#include <optional>

namespace rs {

namespace {

QString fromView(std::string_view v)
{
    return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size()));
}

QString flagNames(std::uint16_t flags)
{
    static const std::pair<SpanFlag, const char *> names[] = {
        {SpanFlagGpu, "gpu"}, {SpanFlagKernel, "kernel"}, {SpanFlagMemcpy, "memcpy"}, {SpanFlagMemset, "memset"},
        {SpanFlagCollective, "collective"}, {SpanFlagStep, "step"}, {SpanFlagAnnotation, "annotation"},
        {SpanFlagRuntime, "runtime"}, {SpanFlagUnmatched, "unmatched begin (closed at trace end)"},
        {SpanFlagOutOfMemory, "out of memory"},
    };
    QStringList out;
    for (const auto &[bit, name] : names)
        if (flags & bit)
            out << QLatin1String(name);
    return out.join(QStringLiteral(", "));
}

} // namespace

void DetailsPanel::setTitle(const QString &title)
{
    // QLabel wraps only at spaces; templated C++ names have none for a hundred characters. A
    // zero-width space after the punctuation of long words gives the wrap places to break.
    QString shown;
    shown.reserve(title.size() + title.size() / 8);
    int run = 0;
    for (const QChar c : title) {
        shown += c;
        run = c.isSpace() ? 0 : run + 1;
        if (run > 24 && (c == QLatin1Char(':') || c == QLatin1Char(',') || c == QLatin1Char('<') || c == QLatin1Char('>')
                         || c == QLatin1Char('/') || c == QLatin1Char('.') || c == QLatin1Char('_') || c == QLatin1Char('('))) {
            shown += QChar(0x200B);
            run = 0;
        }
    }
    m_title->setText(shown);
    m_title->setToolTip(shown.size() != title.size() || title.size() > 80 ? title : QString());
}

DetailsPanel::DetailsPanel(ViewState *state, QWidget *parent)
    : QWidget(parent)
    , m_state(state)
{
    m_title = new QLabel;
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont tf = m_title->font();
    tf.setPointSizeF(tf.pointSizeF() * 1.15);
    tf.setBold(true);
    m_title->setFont(tf);
    m_subtitle = new QLabel;
    m_subtitle->setTextFormat(Qt::RichText);
    m_subtitle->setWordWrap(true);
    // The dock's width is the user's: a long kernel name wraps (or is cut, with the whole name in
    // the tooltip) instead of widening the dock and squeezing the timeline.
    for (QLabel *label : {m_title, m_subtitle})
        label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_empty = new QLabel(tr("Select an event, a log record or an OOM marker on the timeline to see its details."));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setStyleSheet(QStringLiteral("color: %1; padding: 24px;").arg(Palette::screen().css(Palette::Role::Muted)));

    m_tree = new QTreeWidget;
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Field"), tr("Value")});
    m_tree->setAlternatingRowColors(true);
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setSectionResizeMode(FieldColumn, QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(true);
    m_tree->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto *copy = new QAction(tr("Copy"), m_tree);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, &DetailsPanel::copySelection);
    m_tree->addAction(copy);
    // A flow row is a link: one click follows it (Enter does too, from the keyboard).
    // Following rebuilds the tree, so it waits until the view is done with the clicked item.
    const auto follow = [this](QTreeWidgetItem *item) {
        if (!item || !item->data(ValueColumn, TargetTrackRole).isValid())
            return;
        const auto track = static_cast<TrackId>(item->data(ValueColumn, TargetTrackRole).toULongLong());
        const auto span = static_cast<std::uint32_t>(item->data(ValueColumn, TargetSpanRole).toULongLong());
        QMetaObject::invokeMethod(this, [this, track, span] { followFlowTo(track, span); }, Qt::QueuedConnection);
    };
    connect(m_tree, &QTreeWidget::itemClicked, this, [follow](QTreeWidgetItem *item, int column) {
        if (column == ValueColumn)
            follow(item);
    });
    connect(m_tree, &QTreeWidget::itemActivated, this, follow);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->setSpacing(4);
    layout->addWidget(m_title);
    layout->addWidget(m_subtitle);
    layout->addWidget(m_tree, 1);
    layout->addWidget(m_empty, 1);

    connect(m_state, &ViewState::selectionChanged, this, &DetailsPanel::showSelection);
    showSelection({});
}

void DetailsPanel::setSession(SessionPtr session)
{
    m_session = std::move(session);
    showSelection(m_state->selection());
}

QTreeWidgetItem *DetailsPanel::addField(const QString &label, const QString &value, QTreeWidgetItem *parent)
{
    auto *item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(m_tree);
    item->setText(FieldColumn, label);
    item->setText(ValueColumn, value);
    item->setToolTip(ValueColumn, value);
    return item;
}

void DetailsPanel::addJson(QTreeWidgetItem *parent, const QString &key, const QJsonValue &value)
{
    if (value.isObject()) {
        const QJsonObject o = value.toObject();
        auto *item = addField(key, QStringLiteral("{%1}").arg(countOf(o.size(), tr("key"), tr("keys"))), parent);
        for (auto it = o.begin(); it != o.end(); ++it)
            addJson(item, it.key(), it.value());
        return;
    }
    if (value.isArray()) {
        const QJsonArray a = value.toArray();
        // Short arrays of scalars (shapes, strides) read best on one line, as the profiler wrote them.
        bool scalars = a.size() <= 16;
        for (const QJsonValue &v : a)
            scalars = scalars && !v.isObject() && !v.isArray();
        if (scalars) {
            addField(key, QString::fromUtf8(QJsonDocument(a).toJson(QJsonDocument::Compact)), parent);
            return;
        }
        auto *item = addField(key, QStringLiteral("[%1]").arg(countOf(a.size(), tr("item"), tr("items"))), parent);
        for (qsizetype i = 0; i < a.size(); ++i)
            addJson(item, QStringLiteral("[%1]").arg(i), a.at(i));
        return;
    }
    QString text;
    switch (value.type()) {
    case QJsonValue::Bool: text = value.toBool() ? QStringLiteral("true") : QStringLiteral("false"); break;
    case QJsonValue::Double: {
        const double d = value.toDouble();
        // Ids and sizes are integers; print them without exponent or decimals.
        text = (d == static_cast<double>(static_cast<qint64>(d)) && std::abs(d) < 9.0e15)
            ? QString::number(static_cast<qint64>(d))
            : QString::number(d, 'g', 12);
        break;
    }
    case QJsonValue::String: text = value.toString(); break;
    case QJsonValue::Null: text = QStringLiteral("null"); break;
    default: break;
    }
    addField(key, text, parent);
}

void DetailsPanel::addArgs(std::string_view raw)
{
    if (raw.empty())
        return;
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(raw.data(), static_cast<qsizetype>(raw.size())), &error);
    auto *args = addField(tr("Args"), QString());
    if (error.error != QJsonParseError::NoError || !doc.isObject()) {
        // Keep what the importer stored even if it is not an object we can split.
        addField(tr("(raw)"), fromView(raw), args);
    } else {
        const QJsonObject o = doc.object();
        args->setText(ValueColumn, countOf(o.size(), tr("key"), tr("keys")));
        for (auto it = o.begin(); it != o.end(); ++it)
            addJson(args, it.key(), it.value());
    }
    args->setExpanded(true);
}

void DetailsPanel::setVisibleContent(bool valid)
{
    m_title->setVisible(valid);
    m_subtitle->setVisible(valid);
    m_tree->setVisible(valid);
    m_empty->setVisible(!valid);
}

void DetailsPanel::showLogRecord(std::uint32_t index)
{
    const Session &s = *m_session;
    const LogRecord &r = s.logs().records[index];
    const LogStyle::Mark mark = LogStyle::mark(r);
    const QString text = LogStyle::message(s.logs(), r);
    // The title is for recognising the record; the whole message is one row below and in the tooltip.
    constexpr int kTitleChars = 110;
    QString title = text.simplified();
    if (title.size() > kTitleChars) {
        const qsizetype cut = title.lastIndexOf(QLatin1Char(' '), kTitleChars);
        title = title.left(cut > kTitleChars / 2 ? cut : kTitleChars) + QStringLiteral(" …");
    }
    setTitle(title);
    m_subtitle->setText(QStringLiteral("<span style='color:%1'>■</span> <b style='color:%1'>%2</b> %3 log record &nbsp;·&nbsp; %4")
                            .arg(LogStyle::color(mark).name(), mark == LogStyle::Mark::Oom ? QStringLiteral("OOM") : LogStyle::levelName(r.level),
                                 LogStyle::kindName(r.kind).toHtmlEscaped(),
                                 r.rank >= 0 ? QStringLiteral("<span style='color:%1'><b>%2</b></span>")
                                                   .arg(RankColors::textColor(r.rank).name(), tr("Rank %1").arg(r.rank))
                                             : LogStyle::rankName(r.rank).toHtmlEscaped()));
    addField(tr("Message"), text);
    addField(tr("Level"), LogStyle::levelName(r.level));
    addField(tr("Kind"), LogStyle::kindName(r.kind));
    addField(tr("Rank"), r.rank >= 0 ? QString::number(r.rank) : LogStyle::rankName(r.rank));
    const Placement *placed = r.time == kNoTime && m_session ? findLogPlacement(s, m_analysis.get(), index) : nullptr;
    if (placed) {
        const TimeNs placedAt = placedDataTime(*m_analysis, *placed);
        const TimeNs t = placedAt + (r.rank >= 0 ? m_state->clockOffset(r.rank) : 0);
        addField(tr("Time"), QStringLiteral("≈ %1 (%2)").arg(TimeFormat::precise(t - m_state->fullRange().begin), placedByText(*placed)));
        addWallClockField(placedAt, true);
    } else if (r.time == kNoTime) {
        addField(tr("Time"), tr("— (the line has no usable time stamp)"));
        // Where the file puts it, said as such: the nearest stamped lines before and after it.
        const auto &records = s.logs().records;
        constexpr std::uint32_t kReach = 5000;
        std::optional<TimeNs> before, after;
        for (std::uint32_t i = index; i-- > 0 && index - i <= kReach && records[i].source == r.source;)
            if (records[i].time != kNoTime) {
                before = records[i].time;
                break;
            }
        for (std::uint32_t i = index + 1; i < records.size() && i - index <= kReach && records[i].source == r.source; ++i)
            if (records[i].time != kNoTime) {
                after = records[i].time;
                break;
            }
        const TimeNs origin = m_state->fullRange().begin;
        if (before && after)
            addField(tr("Printed between"), tr("%1 and %2 (the stamped lines around it)")
                                                .arg(TimeFormat::precise(*before - origin), TimeFormat::precise(*after - origin)));
        else if (before)
            addField(tr("Printed after"), tr("%1 (the last stamped line before it)").arg(TimeFormat::precise(*before - origin)));
        else if (after)
            addField(tr("Printed before"), tr("%1 (the next stamped line)").arg(TimeFormat::precise(*after - origin)));
    } else {
        const TimeNs t = r.time + (r.rank >= 0 ? m_state->clockOffset(r.rank) : 0);
        addField(tr("Time"), TimeFormat::precise(t - m_state->fullRange().begin));
        addWallClockField(r.time, false);
    }
    addSourceField(r.source, r.line);
    if (r.flags)
        addField(tr("Flags"), LogStyle::flagNames(r.flags));
}

void DetailsPanel::addWallClockField(TimeNs dataTime, bool estimated)
{
    // As spans show it: the rank's own clock, in the session's time zone; a trace without a wall
    // clock (times from 0) has none to show.
    if (!TimeFormat::isWallClock(dataTime))
        return;
    const QString text = TimeFormat::wallClock(dataTime);
    addField(tr("Time (wall clock)"), estimated ? QStringLiteral("≈ ") + text : text);
}

void DetailsPanel::addSourceField(SourceId source, std::int64_t line)
{
    if (source >= m_session->sources().size()) {
        addField(tr("Source"), tr("line %1").arg(line));
        return;
    }
    const QString path = QString::fromStdString(m_session->sources()[source].path);
    addField(tr("Source"), QStringLiteral("%1:%2").arg(QFileInfo(path).fileName()).arg(line))
        ->setToolTip(ValueColumn, QStringLiteral("%1:%2").arg(path).arg(line));
}

void DetailsPanel::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    m_analysis = std::move(analysis);
}

void DetailsPanel::showOom(std::uint32_t index)
{
    const Session &s = *m_session;
    const OomEvent &o = s.ooms()[index];
    auto bytes = [](std::int64_t b) {
        return QStringLiteral("%1 (%L2 bytes)").arg(TimeFormat::bytes(static_cast<double>(b))).arg(b);
    };
    setTitle(o.requested >= 0 ? tr("CUDA out of memory: tried to allocate %1").arg(TimeFormat::bytes(static_cast<double>(o.requested)))
                                      : tr("CUDA out of memory"));
    m_subtitle->setText(QStringLiteral("<span style='color:#c91d2e'>■</span> %1 &nbsp;·&nbsp; <span style='color:%2'><b>%3</b></span>")
                            .arg(tr("out-of-memory error"), RankColors::textColor(o.rank).name(), tr("Rank %1").arg(o.rank)));
    addField(tr("Rank"), o.rank >= 0 ? QString::number(o.rank) : tr("unknown"));
    if (o.device >= 0)
        addField(tr("GPU"), QString::number(o.device));
    if (o.time != kNoTime) {
        addField(tr("Time"), TimeFormat::precise(o.time + m_state->clockOffset(o.rank) - m_state->fullRange().begin));
        addWallClockField(o.time, false);
    } else if (const Placement *p = findPlacement(m_analysis.get(), Placement::Kind::Oom, index)) {
        const TimeNs placedAt = placedDataTime(*m_analysis, *p);
        const TimeNs t = placedAt + m_state->clockOffset(o.rank);
        addField(tr("Time"), QStringLiteral("≈ %1 (%2)").arg(TimeFormat::precise(t - m_state->fullRange().begin), placedByText(*p)));
        addWallClockField(placedAt, true);
    } else {
        addField(tr("Time"), tr("— (the message has no time stamp)"));
    }
    const std::pair<const char *, std::int64_t> amounts[] = {
        {QT_TR_NOOP("Requested"), o.requested},      {QT_TR_NOOP("GPU capacity"), o.capacity},
        {QT_TR_NOOP("Allocated by PyTorch"), o.allocated}, {QT_TR_NOOP("Reserved by PyTorch"), o.reserved},
        {QT_TR_NOOP("Free on the GPU"), o.free},     {QT_TR_NOOP("In use by the process"), o.processInUse},
    };
    for (const auto &[label, value] : amounts)
        if (value >= 0)
            addField(tr(label), bytes(value));
    if (o.reserved >= 0 && o.allocated >= 0)
        addField(tr("Reserved − allocated"), bytes(o.reserved - o.allocated));
    addSourceField(o.source, o.line);
    addField(tr("Message"), QString::fromStdString(o.text));
}

void DetailsPanel::showSelection(const EventRef &event)
{
    m_tree->clear();
    if (m_session && event.kind == EventRef::Kind::LogRecord && event.index < m_session->logs().records.size()) {
        setVisibleContent(true);
        showLogRecord(event.index);
        return;
    }
    if (m_session && event.kind == EventRef::Kind::Oom && event.index < m_session->ooms().size()) {
        setVisibleContent(true);
        showOom(event.index);
        return;
    }
    const bool valid = m_session && !event.isNone() && event.track < m_session->tracks().size()
        && ((event.kind == EventRef::Kind::Span && event.index < m_session->tracks()[event.track].spans.size())
            || (event.kind == EventRef::Kind::Instant && event.index < m_session->tracks()[event.track].instants.size()));
    setVisibleContent(valid);
    if (!valid)
        return;

    const Session &s = *m_session;
    const Track &track = s.tracks()[event.track];
    const TimeNs offset = m_state->clockOffset(track.rank);
    const TimeNs origin = m_state->fullRange().begin;
    const Source *source = track.source < s.sources().size() ? &s.sources()[track.source] : nullptr;
    const bool wallClock = source && source->hasClock;

    StringId name = 0, category = 0;
    std::uint16_t flags = 0;
    ArgsId argsId = kNoArgs;
    TimeNs start = 0, duration = 0;
    if (event.kind == EventRef::Kind::Span) {
        const Span &sp = track.spans[event.index];
        name = sp.name;
        category = sp.category;
        flags = sp.flags;
        argsId = sp.args;
        start = sp.start + offset;
        duration = sp.duration;
    } else {
        const Instant &in = track.instants[event.index];
        name = in.name;
        category = in.category;
        flags = in.flags;
        argsId = in.args;
        start = in.time + offset;
    }

    const QString categoryText = fromView(s.str(category));
    const SpanPalette::Family family = SpanPalette::family(flags, s.str(category));
    setTitle(fromView(s.str(name)));
    m_subtitle->setText(QStringLiteral("<span style='color:%1'>■</span> %2 &nbsp;·&nbsp; <span style='color:%3'><b>%4</b></span>")
                            .arg(SpanPalette::familyColor(family).name(), SpanPalette::familyName(family).toHtmlEscaped(),
                                 RankColors::textColor(track.rank).name(), tr("Rank %1").arg(track.rank)));

    addField(tr("Name"), fromView(s.str(name)));
    addField(tr("Category"), categoryText);
    addField(tr("Track"), QStringLiteral("%1 (%2)").arg(LaneLayout::trackTitle(s, track), QLatin1String(trackKindName(track.kind))));
    addField(tr("Rank"), track.rank == kNoRank ? tr("unknown") : QString::number(track.rank));
    if (event.kind == EventRef::Kind::Span) {
        addField(tr("Start"), TimeFormat::precise(start - origin));
        if (wallClock)
            addField(tr("Start (wall clock)"), TimeFormat::wallClock(start));
        addField(tr("Duration"), QStringLiteral("%1 (%L2 ns)").arg(TimeFormat::duration(duration)).arg(duration));
        addField(tr("End"), TimeFormat::precise(start + duration - origin));
        addField(tr("Depth"), QString::number(track.spans[event.index].depth));
    } else {
        addField(tr("Time"), TimeFormat::precise(start - origin));
        if (wallClock)
            addField(tr("Time (wall clock)"), TimeFormat::wallClock(start));
    }
    if (offset != 0)
        addField(tr("Clock offset"), TimeFormat::duration(offset));
    if (flags)
        addField(tr("Flags"), flagNames(flags));
    if (source)
        addField(tr("Source"), QFileInfo(QString::fromStdString(source->path)).fileName())
            ->setToolTip(ValueColumn, QString::fromStdString(source->path));
    if (event.kind == EventRef::Kind::Span)
        addFlows(event.track, event.index);
    addArgs(s.args(event.track, argsId));
}

void DetailsPanel::addFlows(TrackId track, std::uint32_t span)
{
    const Session &s = *m_session;
    const Span &here = s.tracks()[track].spans[span];
    const TimeNs hereAt = here.start + m_state->clockOffset(s.tracks()[track].rank);
    for (const std::uint32_t i : s.flowsAt(track, span)) {
        const Flow &f = s.flows()[i];
        const bool outgoing = f.from == FlowEnd{track, span};
        const FlowEnd &other = outgoing ? f.to : f.from;
        const Track &t = s.tracks()[other.track];
        const Span &there = t.spans[other.span];
        QString label;
        switch (f.kind) {
        case FlowKind::Launch: label = outgoing ? tr("Launches") : tr("Launched by"); break;
        case FlowKind::ForwardBackward: label = outgoing ? tr("Backward op") : tr("Forward op"); break;
        case FlowKind::Other: label = outgoing ? tr("Flow to") : tr("Flow from"); break;
        }
        const TimeNs gap = there.start + m_state->clockOffset(t.rank) - hereAt;
        const QString when = gap >= 0 ? tr("%1 later").arg(TimeFormat::duration(gap)) : tr("%1 earlier").arg(TimeFormat::duration(-gap));
        QTreeWidgetItem *item = addField(label, QStringLiteral("%1 %2  ·  %3  ·  %4")
                                                    .arg(outgoing ? QStringLiteral("→") : QStringLiteral("←"),
                                                         fromView(s.str(there.name)), LaneLayout::trackTitle(s, t), when));
        item->setData(ValueColumn, TargetTrackRole, static_cast<qulonglong>(other.track));
        item->setData(ValueColumn, TargetSpanRole, static_cast<qulonglong>(other.span));
        item->setForeground(ValueColumn, palette().color(QPalette::Link));
        QFont font = item->font(ValueColumn);
        font.setUnderline(true);
        item->setFont(ValueColumn, font);
        item->setToolTip(ValueColumn, tr("Click to select %1 and show both ends").arg(fromView(s.str(there.name))));
    }
}

QList<QTreeWidgetItem *> DetailsPanel::flowItems() const
{
    QList<QTreeWidgetItem *> out;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        if (m_tree->topLevelItem(i)->data(ValueColumn, TargetTrackRole).isValid())
            out << m_tree->topLevelItem(i);
    return out;
}

void DetailsPanel::followFlow(QTreeWidgetItem *item)
{
    if (item && item->data(ValueColumn, TargetTrackRole).isValid())
        followFlowTo(static_cast<TrackId>(item->data(ValueColumn, TargetTrackRole).toULongLong()),
                     static_cast<std::uint32_t>(item->data(ValueColumn, TargetSpanRole).toULongLong()));
}

void DetailsPanel::followFlowTo(TrackId track, std::uint32_t span)
{
    const EventRef from = m_state->selection();
    if (!m_session || track >= m_session->tracks().size() || span >= m_session->tracks()[track].spans.size()
        || from.kind != EventRef::Kind::Span || from.track >= m_session->tracks().size()
        || from.index >= m_session->tracks()[from.track].spans.size())
        return;
    // Both ends in the window, so the arrow between them is drawn: the window grows to hold them
    // (with a margin) only when one of them is outside it.
    const auto rangeOf = [this](const EventRef &e) {
        const Track &t = m_session->tracks()[e.track];
        const Span &sp = t.spans[e.index];
        const TimeNs at = sp.start + m_state->clockOffset(t.rank);
        return TimeRange{at, at + std::max<TimeNs>(1, sp.duration)};
    };
    const EventRef to = EventRef::span(track, span);
    const TimeRange both = rangeOf(from).united(rangeOf(to));
    const TimeRange visible = m_state->visibleRange();
    if (both.begin < visible.begin || both.end > visible.end) {
        const TimeNs width = std::max(visible.duration(), both.duration() + both.duration() / 2);
        const TimeNs middle = both.begin + both.duration() / 2;
        m_state->setVisibleRange({middle - width / 2, middle - width / 2 + width});
    }
    m_state->setSelection(to);
    Q_EMIT revealRequested(to);
}

QString DetailsPanel::fieldValue(const QString &label) const
{
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        if (m_tree->topLevelItem(i)->text(FieldColumn) == label)
            return m_tree->topLevelItem(i)->text(ValueColumn);
    return {};
}

QTreeWidgetItem *DetailsPanel::argsItem() const
{
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        if (m_tree->topLevelItem(i)->text(FieldColumn) == tr("Args"))
            return m_tree->topLevelItem(i);
    return nullptr;
}

void DetailsPanel::copySelection()
{
    QStringList lines;
    for (const QTreeWidgetItem *item : m_tree->selectedItems())
        lines << item->text(FieldColumn) + QStringLiteral(": ") + item->text(ValueColumn);
    if (!lines.isEmpty())
        QApplication::clipboard()->setText(lines.join(QLatin1Char('\n')));
}

} // namespace rs
