#include "findingspanel.h"

#include "palette.h"


#include "annotations/annotationpainter.h"
#include "findingstyle.h"
#include "models/findingsfiltermodel.h"
#include "models/findingsmodel.h"
#include "timeformat.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QRegularExpression>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyledItemDelegate>
#include <QTextBrowser>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace rs {

namespace {

QString html(const std::string &s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

// Whether `a` and `b` name the same file: equal, the same canonical file, or one a relative form
// of the other (the analyzer prints paths as the user gave them; sources may hold them absolute).
bool samePath(const QString &a, const QString &b)
{
    if (a.isEmpty() || b.isEmpty())
        return false;
    if (a == b)
        return true;
    const QString ca = QFileInfo(a).canonicalFilePath(), cb = QFileInfo(b).canonicalFilePath();
    if (!ca.isEmpty() && ca == cb)
        return true;
    return a.endsWith(QLatin1Char('/') + b) || b.endsWith(QLatin1Char('/') + a);
}

// The "#" column draws a finding's number as the badge its marker carries on the timeline (and in
// an exported figure), so the row of "③ on the timeline" is found by eye, not only by reading.
class NumberBadgeDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        const int number = index.data(FindingsModel::NumberRole).toInt();
        // Child rows span every column from this one: they are text, drawn as usual.
        if (index.column() != FindingsModel::NumberColumn || index.parent().isValid() || number <= 0) {
            QStyledItemDelegate::paint(painter, option, index);
            return;
        }
        QStyleOptionViewItem opt(option);
        initStyleOption(&opt, index);
        opt.text.clear(); // the background and selection only; the badge says the number
        const QWidget *widget = opt.widget;
        (widget ? widget->style() : QApplication::style())->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
        const auto severity = static_cast<Severity>(index.data(FindingsModel::SeverityRole).toInt());
        const QSizeF size = AnnotationPainter::numberBadgeSize(number);
        const QPointF centre(opt.rect.left() + 2 + size.width() / 2, opt.rect.center().y() + 0.5);
        AnnotationPainter::paintNumberBadge(*painter, centre, number, FindingStyle::severityColor(severity));
    }
};

} // namespace

FindingsPanel::FindingsPanel(ViewState *state, QWidget *parent)
    : QWidget(parent)
    , m_state(state)
    , m_model(new FindingsModel(this))
    , m_proxy(new FindingsFilterModel(this))
{
    m_proxy->setSourceModel(m_model);

    m_severity = new QComboBox;
    m_severity->addItem(tr("All severities"), static_cast<int>(Severity::Info));
    m_severity->addItem(tr("Low and above"), static_cast<int>(Severity::Low));
    m_severity->addItem(tr("Medium and above"), static_cast<int>(Severity::Medium));
    m_severity->addItem(tr("High only"), static_cast<int>(Severity::High));
    m_severity->setToolTip(tr("Minimum severity shown"));
    m_text = new QLineEdit;
    m_text->setPlaceholderText(tr("Filter findings…"));
    m_text->setClearButtonEnabled(true);
    m_count = new QLabel;
    m_count->setStyleSheet(QStringLiteral("color: %1;").arg(Palette::screen().css(Palette::Role::Muted)));
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 4);
    bar->addWidget(m_severity);
    bar->addWidget(m_text, 1);
    bar->addWidget(m_count);

    m_tree = new QTreeView;
    m_tree->setModel(m_proxy);
    m_tree->setUniformRowHeights(true);
    m_tree->setAllColumnsShowFocus(true);
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    m_tree->setTextElideMode(Qt::ElideRight);
    m_tree->setExpandsOnDoubleClick(false); // double-click on a finding jumps, the arrow expands
    QHeaderView *h = m_tree->header();
    h->setStretchLastSection(false);
    h->setSectionResizeMode(FindingsModel::TitleColumn, QHeaderView::Stretch);
    // Compact fixed columns (number badge, icon + short severity, "r0,1,3", "+63.6 s"); the title
    // takes the rest.
    for (int c : {FindingsModel::NumberColumn, FindingsModel::SeverityColumn, FindingsModel::RanksColumn, FindingsModel::TimeColumn})
        h->setSectionResizeMode(c, QHeaderView::Interactive);
    h->resizeSection(FindingsModel::NumberColumn, 50);   // expand arrow + a two-digit badge
    h->resizeSection(FindingsModel::SeverityColumn, 66); // icon + "Med"
    h->resizeSection(FindingsModel::RanksColumn, 60);
    h->resizeSection(FindingsModel::TimeColumn, 62);
    h->resizeSection(FindingsModel::IdColumn, 150);
    // The id is in the details text; the tree keeps its width for the title.
    m_tree->setColumnHidden(FindingsModel::IdColumn, true);
    m_tree->setItemDelegateForColumn(FindingsModel::NumberColumn, new NumberBadgeDelegate(m_tree));

    m_details = new QTextBrowser;
    m_details->setOpenLinks(false);
    m_details->setFrameShape(QFrame::NoFrame);
    applyColors();

    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(m_tree);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);

    m_empty = new QLabel(tr("No findings yet: open a session; the analysis runs once it is loaded."));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setStyleSheet(QStringLiteral("color: %1; padding: 16px;").arg(Palette::screen().css(Palette::Role::Muted)));
    m_stack = new QStackedWidget;
    m_stack->addWidget(m_empty);
    m_stack->addWidget(split);

    // The story reads first: one paragraph, its first sentence in bold, the fix set apart.
    m_story = new QLabel;
    m_story->setWordWrap(true);
    m_story->setTextFormat(Qt::RichText);
    m_story->setTextInteractionFlags(Qt::TextBrowserInteraction);
    m_story->setOpenExternalLinks(false);
    m_story->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    m_story->hide();
    connect(m_story, &QLabel::linkActivated, this, &FindingsPanel::storyLinkActivated);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_story);
    layout->addLayout(bar);
    layout->addWidget(m_stack, 1);

    connect(m_severity, &QComboBox::currentIndexChanged, this, [this] {
        m_proxy->setMinimumSeverity(static_cast<Severity>(m_severity->currentData().toInt()));
        spanChildRows();
        updateCount();
    });
    connect(m_text, &QLineEdit::textChanged, this, [this](const QString &t) {
        m_proxy->setText(t);
        spanChildRows();
        updateCount();
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { currentChanged(current); });
    connect(m_tree, &QTreeView::activated, this, &FindingsPanel::activated);
    connect(m_tree, &QTreeView::customContextMenuRequested, this, &FindingsPanel::contextMenu);
    connect(m_details, &QTextBrowser::anchorClicked, this, &FindingsPanel::linkClicked);
    connect(m_state, &ViewState::fullRangeChanged, this, [this](TimeRange r) {
        m_model->setOrigin(r.begin);
        renderDetails();
    });
    // A finding picked elsewhere (its marker on the timeline) is selected here as if clicked.
    connect(m_state, &ViewState::selectedFindingChanged, this, [this](int findingIndex) {
        if (findingIndex == m_current)
            return;
        if (findingIndex < 0)
            m_tree->setCurrentIndex({});
        else
            selectFinding(findingIndex);
    });
    setResult(nullptr);
}

void FindingsPanel::setSession(SessionPtr session)
{
    m_session = std::move(session);
    m_model->setOrigin(m_state->fullRange().begin);
}

void FindingsPanel::setResult(std::shared_ptr<const AnalysisResult> result)
{
    // A re-analysis (a clock offset edited) keeps the finding the user was reading.
    const Finding *before = findingAt(m_current);
    const std::string keptId = before ? before->id : std::string();
    const std::vector<RankId> keptRanks = before ? before->ranks : std::vector<RankId>();
    m_current = -1;
    m_model->setOrigin(m_state->fullRange().begin);
    m_model->setResult(std::move(result));
    spanChildRows();
    const bool any = m_model->rowCount() > 0;
    // With nothing found the story says what was read, which is worth more than "nothing".
    const QString nothing = QString::fromStdString(m_model->story().headline);
    m_empty->setText(!m_model->result() ? tr("No findings yet: open a session; the analysis runs once it is loaded.")
                         : nothing.isEmpty() ? tr("The analysis found nothing to report.")
                                             : nothing);
    renderStory();
    m_stack->setCurrentIndex(any ? 1 : 0);
    updateCount();
    if (!keptId.empty() && m_model->result()) {
        const auto &fs = m_model->result()->findings;
        for (int i = 0; i < static_cast<int>(fs.size()); ++i) {
            if (fs[static_cast<std::size_t>(i)].id == keptId && fs[static_cast<std::size_t>(i)].ranks == keptRanks) {
                m_restoring = true;
                selectFinding(i);
                m_restoring = false;
                // The window may have moved with the offsets; the highlight follows without a jump.
                showFinding(i, false);
                return;
            }
        }
    }
    m_state->clearHighlight();
    m_state->setSelectedFinding(-1);
    renderDetails();
    Q_EMIT currentFindingChanged(-1);
}

const Finding *FindingsPanel::findingAt(int findingIndex) const
{
    const auto &r = m_model->result();
    return r && findingIndex >= 0 && findingIndex < static_cast<int>(r->findings.size())
        ? &r->findings[static_cast<std::size_t>(findingIndex)]
        : nullptr;
}

void FindingsPanel::spanChildRows()
{
    for (int row = 0; row < m_proxy->rowCount(); ++row) {
        const QModelIndex parent = m_proxy->index(row, 0);
        for (int c = 0; c < m_proxy->rowCount(parent); ++c)
            m_tree->setFirstColumnSpanned(c, parent, true);
    }
}

void FindingsPanel::updateCount()
{
    const int shown = m_proxy->rowCount(), total = m_model->rowCount();
    m_count->setText(shown == total ? tr("%n finding(s)", nullptr, total) : tr("%1 of %2").arg(shown).arg(total));
}

std::optional<TimeRange> FindingsPanel::windowFor(const Finding &f)
{
    if (!f.timeNs)
        return std::nullopt;
    const TimeNs begin = *f.timeNs;
    if (f.endNs && *f.endNs > begin) {
        const TimeNs pad = std::max<TimeNs>((*f.endNs - begin) / 8, 1'000'000);
        return TimeRange{begin - pad, *f.endNs + pad};
    }
    return TimeRange{begin - kMomentWindowNs / 2, begin + kMomentWindowNs / 2};
}

std::optional<std::uint32_t> FindingsPanel::logRecordFor(const Evidence &e) const
{
    if (!m_session || e.path.empty() || e.line <= 0)
        return std::nullopt;
    const QString path = QString::fromStdString(e.path);
    const auto &sources = m_session->sources();
    std::vector<bool> matches(sources.size());
    for (std::size_t i = 0; i < sources.size(); ++i)
        matches[i] = samePath(QString::fromStdString(sources[i].path), path);
    const auto &records = m_session->logs().records;
    for (std::uint32_t i = 0; i < records.size(); ++i)
        if (records[i].line == e.line && records[i].source < matches.size() && matches[records[i].source])
            return i;
    return std::nullopt;
}

void FindingsPanel::selectFinding(int findingIndex)
{
    QModelIndex source = m_model->indexOfFinding(findingIndex);
    QModelIndex proxy = m_proxy->mapFromSource(source);
    if (!proxy.isValid() && source.isValid()) {
        // Hidden by the filter: clear it rather than select something invisible.
        m_severity->setCurrentIndex(0);
        m_text->clear();
        proxy = m_proxy->mapFromSource(source);
    }
    if (!proxy.isValid())
        return;
    m_tree->setCurrentIndex(proxy);
    m_tree->scrollTo(proxy);
}

bool FindingsPanel::selectTopFinding()
{
    if (m_proxy->rowCount() == 0)
        return false;
    m_tree->setCurrentIndex(m_proxy->index(0, 0));
    return true;
}

void FindingsPanel::currentChanged(const QModelIndex &current)
{
    const int finding = current.isValid() ? current.data(FindingsModel::FindingIndexRole).toInt() : -1;
    if (finding == m_current)
        return;
    m_current = finding;
    m_state->setSelectedFinding(finding);
    if (!m_restoring)
        showFinding(finding, true);
    renderDetails();
    Q_EMIT currentFindingChanged(finding);
}

void FindingsPanel::showFinding(int findingIndex, bool move)
{
    const Finding *f = findingAt(findingIndex);
    if (!f) {
        m_state->clearHighlight();
        return;
    }
    const std::optional<TimeRange> window = windowFor(*f);
    TimeRange shaded;
    if (f->timeNs)
        shaded = {*f->timeNs, std::max(f->endNs.value_or(*f->timeNs), *f->timeNs + 1)};
    m_state->setHighlight({f->ranks, shaded});
    if (!move)
        return;
    if (window)
        m_state->setVisibleRange(*window, ViewState::Change::Jump);
    if (!f->ranks.empty())
        m_state->setSelectedRank(f->ranks.front());
}

void FindingsPanel::activated(const QModelIndex &index)
{
    const auto kind = static_cast<FindingsModel::RowKind>(index.data(FindingsModel::RowKindRole).toInt());
    const int finding = index.data(FindingsModel::FindingIndexRole).toInt();
    switch (kind) {
    case FindingsModel::RowKind::Finding: showFinding(finding, true); break;
    case FindingsModel::RowKind::Evidence: activateEvidence(finding, index.data(FindingsModel::EvidenceIndexRole).toInt()); break;
    case FindingsModel::RowKind::Fix: copyFix(finding); break;
    }
}

void FindingsPanel::activateEvidence(int findingIndex, int evidenceIndex)
{
    const Finding *f = findingAt(findingIndex);
    if (!f || evidenceIndex < 0 || evidenceIndex >= static_cast<int>(f->evidence.size()))
        return;
    const Evidence &e = f->evidence[static_cast<std::size_t>(evidenceIndex)];
    const RankId rank = e.rank >= 0 ? e.rank : (f->ranks.empty() ? kNoRank : f->ranks.front());
    if (rank >= 0)
        m_state->setSelectedRank(rank);
    if (e.timeNs)
        m_state->setVisibleRange({*e.timeNs - kMomentWindowNs / 2, *e.timeNs + kMomentWindowNs / 2}, ViewState::Change::Jump);
    if (const auto record = logRecordFor(e))
        Q_EMIT logRecordRequested(*record);
}

void FindingsPanel::copyFix(int findingIndex)
{
    const Finding *f = findingAt(findingIndex < 0 ? m_current : findingIndex);
    if (f && !f->fix.empty())
        QApplication::clipboard()->setText(QString::fromStdString(f->fix));
}

void FindingsPanel::contextMenu(const QPoint &pos)
{
    const QModelIndex index = m_tree->indexAt(pos);
    if (!index.isValid())
        return;
    const int finding = index.data(FindingsModel::FindingIndexRole).toInt();
    const Finding *f = findingAt(finding);
    if (!f)
        return;
    QMenu menu(this);
    QAction *copy = menu.addAction(tr("Copy Fix"), this, [this, finding] { copyFix(finding); });
    copy->setEnabled(!f->fix.empty());
    menu.addAction(tr("Copy Finding"), this, [f] {
        QString text = QStringLiteral("[%1] %2: %3\n").arg(QString::fromLatin1(severityName(f->severity)),
                                                            QString::fromStdString(f->id), QString::fromStdString(f->title));
        for (const Evidence &e : f->evidence)
            text += QStringLiteral("    %1\n").arg(QString::fromStdString(e.text));
        if (!f->fix.empty())
            text += QStringLiteral("    fix: %1\n").arg(QString::fromStdString(f->fix));
        QApplication::clipboard()->setText(text);
    });
    if (static_cast<FindingsModel::RowKind>(index.data(FindingsModel::RowKindRole).toInt()) == FindingsModel::RowKind::Evidence) {
        const int evidence = index.data(FindingsModel::EvidenceIndexRole).toInt();
        menu.addSeparator();
        menu.addAction(tr("Jump to Evidence"), this, [this, finding, evidence] { activateEvidence(finding, evidence); });
    }
    menu.exec(m_tree->viewport()->mapToGlobal(pos));
}

void FindingsPanel::linkClicked(const QUrl &url)
{
    if (url.scheme() == QLatin1String("evidence"))
        activateEvidence(m_current, url.path().toInt());
    else if (url.scheme() == QLatin1String("copyfix"))
        copyFix(url.path().isEmpty() ? m_current : url.path().toInt());
    else if (url.scheme() == QLatin1String("goto"))
        selectFinding(url.path().toInt());
    else if (url.scheme() == QLatin1String("finding"))
        showFinding(m_current, true);
}

void FindingsPanel::renderDetails()
{
    const Finding *f = findingAt(m_current);
    if (!f) {
        m_details->setHtml(QStringLiteral("<p class='muted'>%1</p>")
                               .arg(tr("Select a finding to read its evidence and the fix.").toHtmlEscaped()));
        return;
    }
    const TimeNs origin = m_state->fullRange().begin;
    const QString color = FindingStyle::severityColor(f->severity).name();
    const QModelIndex row = m_model->indexOfFinding(m_current);
    QString out = QStringLiteral("<p style='margin:0'><span style='color:%1; font-weight:600'>#%2 %3</span>"
                                 " <span class='muted'>· %4</span></p>")
                      .arg(color, QString::number(row.data(FindingsModel::NumberRole).toInt()),
                           FindingStyle::severityLabel(f->severity).toUpper(), html(f->id));
    out += QStringLiteral("<p style='font-size:large; font-weight:600; margin:4px 0'>%1</p>").arg(html(f->title));
    QString where = FindingsModel::ranksText(f->ranks).toHtmlEscaped();
    if (f->timeNs) {
        where += QStringLiteral(" · <a href='finding:'>%1").arg(FindingsModel::shortTime(*f->timeNs - origin));
        if (f->endNs && *f->endNs > *f->timeNs)
            where += QStringLiteral(" – %1").arg(FindingsModel::shortTime(*f->endNs - origin));
        where += QStringLiteral("</a>");
    }
    out += QStringLiteral("<p class='muted' style='margin:0'>%1</p>").arg(where);
    const FindingStory story = m_model->story().roleOf(m_current);
    if (story.role == StoryRole::Consequence && story.relatedTo >= 0)
        out += QStringLiteral("<p style='margin:6px 0 0 0'>↳ %1</p>")
                   .arg(tr("Consequence of <a href='goto:%1'>#%2</a>: fixing that fixes this.")
                            .arg(story.relatedTo)
                            .arg(m_model->numberOf(story.relatedTo)));
    else if (story.role == StoryRole::Contributing && story.relatedTo >= 0)
        out += QStringLiteral("<p style='margin:6px 0 0 0'>%1</p>")
                   .arg(tr("Led to <a href='goto:%1'>#%2</a>.").arg(story.relatedTo).arg(m_model->numberOf(story.relatedTo)));

    if (!f->evidence.empty()) {
        out += QStringLiteral("<h4>%1</h4><ul style='margin-left:-24px'>").arg(tr("Evidence"));
        for (std::size_t i = 0; i < f->evidence.size(); ++i) {
            const Evidence &e = f->evidence[i];
            QString text = QString::fromStdString(e.text);
            QString link;
            // "path:line: message" reads better as a short link to the line, then the message.
            if (!e.path.empty()) {
                const QString prefix = QString::fromStdString(e.path) + (e.line > 0 ? QStringLiteral(":%1").arg(e.line) : QString());
                if (text.startsWith(prefix)) {
                    text = text.mid(prefix.size());
                    if (text.startsWith(QLatin1Char(':')))
                        text = text.mid(1);
                    text = text.trimmed();
                }
                link = QFileInfo(QString::fromStdString(e.path)).fileName() + (e.line > 0 ? QStringLiteral(":%1").arg(e.line) : QString());
            } else if (e.timeNs) {
                link = FindingsModel::shortTime(*e.timeNs - origin);
            }
            const bool jumpable = e.timeNs || e.line > 0;
            out += QStringLiteral("<li style='margin-bottom:3px'>");
            if (!link.isEmpty())
                out += jumpable ? QStringLiteral("<a href='evidence:%1'>%2</a> ").arg(i).arg(link.toHtmlEscaped())
                                : QStringLiteral("<span class='muted'>%1</span> ").arg(link.toHtmlEscaped());
            out += text.toHtmlEscaped() + QStringLiteral("</li>");
        }
        out += QStringLiteral("</ul>");
    }
    // A consequence is fixed by fixing its cause: that fix is the one shown.
    const int fixFrom = story.role == StoryRole::Consequence && story.fixFrom >= 0 ? story.fixFrom : m_current;
    const Finding *fixer = findingAt(fixFrom);
    if (fixer && !fixer->fix.empty()) {
        const QString heading = fixFrom == m_current      ? tr("Fix")
            : fixFrom == story.relatedTo                   ? tr("Fix (of #%1, the cause)").arg(m_model->numberOf(fixFrom))
                                                           : tr("Fix (of #%1, behind the cause)").arg(m_model->numberOf(fixFrom));
        out += QStringLiteral("<h4>%1 <a href='copyfix:%2' style='font-weight:normal'>(%3)</a></h4>").arg(heading).arg(fixFrom).arg(tr("copy"));
        out += QStringLiteral("<table class='fix' width='100%' cellpadding='6'><tr><td>%1</td></tr></table>").arg(html(fixer->fix));
    }
    m_details->setHtml(out);
}

void FindingsPanel::applyColors()
{
    const Palette &colors = Palette::screen();
    m_details->document()->setDefaultStyleSheet(QStringLiteral("a { color: %1; text-decoration: none; } h4 { margin: 10px 0 3px 0; color: %2; }"
                                                               ".muted { color: %3; } .fix { background: %4; }")
                                                    .arg(colors.css(Palette::Role::Link), colors.css(Palette::Role::Title),
                                                         colors.css(Palette::Role::Muted), colors.css(Palette::Role::FixBox)));
}

void FindingsPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    // The desktop's theme changed (the timeline switches its Palette on the same event): the story
    // and the details are written again in the new colours.
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange) {
        applyColors();
        renderStory();
        renderDetails();
    }
}

void FindingsPanel::renderStory()
{
    const IncidentSummary &story = m_model->story();
    if (m_model->rowCount() == 0 || story.headline.empty()) {
        m_story->hide();
        m_story->clear();
        return;
    }
    // Mentions of a culprit rank are links: a click picks the rank and shows the cause.
    auto linked = [&story](const QString &text) -> QString {
        QString out = text.toHtmlEscaped();
        static const QRegularExpression rank(QStringLiteral("\\b([Rr]ank) (\\d+)\\b"));
        QString result;
        qsizetype last = 0;
        for (auto it = rank.globalMatch(out); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            const RankId r = m.captured(2).toInt();
            result += out.mid(last, m.capturedStart() - last);
            const bool culprit = std::find(story.culpritRanks.begin(), story.culpritRanks.end(), r) != story.culpritRanks.end();
            result += culprit ? QStringLiteral("<a href='rank:%1' style='color:%3'>%2</a>").arg(r).arg(m.captured(0), Palette::screen().css(Palette::Role::Link))
                              : m.captured(0);
            last = m.capturedEnd();
        }
        return result + out.mid(last);
    };
    const QString headline = QString::fromStdString(story.headline);
    const QString first = QString::fromStdString(story.firstSentence());
    QString rest = headline.size() > first.size() + 1 ? headline.mid(first.size() + 2) : QString();
    QString fix;
    if (const qsizetype at = rest.startsWith(QLatin1String("Fix: ")) ? 0 : rest.indexOf(QLatin1String(" Fix: ")); at >= 0) {
        fix = rest.mid(at + (at == 0 ? 5 : 6));
        rest.truncate(at);
    }
    // The accent takes the colour of the cause's severity, like its badge in the list.
    Severity severity = Severity::Info;
    for (int i : story.chain)
        if (const Finding *f = findingAt(i); f && story.roleOf(i).role == StoryRole::Cause)
            severity = std::max(severity, f->severity);
    QString out = QStringLiteral("<b>%1.</b>").arg(linked(first));
    if (!rest.isEmpty())
        out += QLatin1Char(' ') + linked(rest);
    if (!fix.isEmpty())
        out += QStringLiteral("<div style='margin-top:5px; color:%3'><b>%1</b> %2</div>")
                   .arg(tr("Fix:"), fix.toHtmlEscaped(), Palette::screen().css(Palette::Role::FixText));
    m_story->setText(out);
    const Palette &colors = Palette::screen();
    m_story->setStyleSheet(QStringLiteral("QLabel { background: %2; color: %3; border: none; border-left: 4px solid %1;"
                                          " border-bottom: 1px solid %4; padding: 8px 10px; }")
                               .arg(FindingStyle::severityColor(severity).name(), colors.css(Palette::Role::Panel), colors.css(Palette::Role::Title),
                                    colors.css(Palette::Role::Separator)));
    m_story->setToolTip(tr("The incident as one story, built from the findings and their time order"));
    m_story->show();
}

void FindingsPanel::storyLinkActivated(const QString &link)
{
    const QUrl url(link);
    if (url.scheme() != QLatin1String("rank"))
        return;
    const RankId rank = url.path().toInt();
    // The cause the rank is blamed for, so the list, the details and the view all show it.
    const IncidentSummary &story = m_model->story();
    for (int i : story.chain)
        if (const Finding *f = findingAt(i); f && story.roleOf(i).role == StoryRole::Cause
                                              && std::find(f->ranks.begin(), f->ranks.end(), rank) != f->ranks.end()) {
            selectFinding(i);
            break;
        }
    m_state->setSelectedRank(rank);
}

} // namespace rs
