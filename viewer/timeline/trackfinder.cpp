#include "trackfinder.h"

#include "palette.h"

#include "lanekind.h"

#include "rankgroupwidget.h"
#include "timelineview.h"
#include "trackfindermodel.h"

#include <QApplication>
#include <QGraphicsDropShadowEffect>
#include <QKeyEvent>
#include <QLayout>
#include <QLineEdit>
#include <QListView>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QVBoxLayout>
#include <QVariantAnimation>

namespace rs {

namespace {

const QColor kAccent(0x25, 0x63, 0xeb);  // the blue of selections elsewhere in the app

// A fading band over one lane, so the eye finds the lane just scrolled to. Deletes itself.
class LaneFlash : public QWidget
{
public:
    LaneFlash(QWidget *group, QRect lane)
        : QWidget(group)
    {
        setObjectName(QStringLiteral("rs_laneFlash"));
        setAttribute(Qt::WA_TransparentForMouseEvents);
        setGeometry(lane);
        auto *fade = new QVariantAnimation(this);
        fade->setStartValue(1.0);
        fade->setEndValue(0.0);
        fade->setDuration(TrackFinder::kFlashMs);
        fade->setEasingCurve(QEasingCurve::InQuad);
        connect(fade, &QVariantAnimation::valueChanged, this, [this](const QVariant &v) {
            m_strength = v.toDouble();
            update();
        });
        connect(fade, &QVariantAnimation::finished, this, &QObject::deleteLater);
        show();
        raise(); // above the memory chart, which is a child widget of the group too
        fade->start();
    }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        QColor fill = kAccent;
        fill.setAlphaF(static_cast<float>(0.22 * m_strength));
        p.fillRect(rect(), fill);
        QColor edge = kAccent;
        edge.setAlphaF(static_cast<float>(m_strength));
        p.fillRect(QRect(0, 0, 4, height()), edge);
        p.setPen(QPen(edge, 1));
        p.drawRect(rect().adjusted(0, 0, -1, -1));
    }

private:
    double m_strength = 1.0;
};

// "Rank 2" muted, then the lane's name, so a long list reads by name first.
class RowDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *p, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        const QString text = index.data(Qt::DisplayRole).toString();
        const qsizetype dot = text.indexOf(QStringLiteral(" · "));
        const QString rank = dot < 0 ? QString() : text.left(dot);
        const QString name = dot < 0 ? text : text.mid(dot + 3);
        p->save();
        const bool current = option.state & QStyle::State_Selected;
        const Palette &colors = Palette::screen();
        if (current) {
            QColor tint = kAccent; // a wash of the accent reads as "current" on light and dark alike
            tint.setAlpha(colors.isDark() ? 70 : 27);
            p->fillRect(option.rect, tint);
        } else if (option.state & QStyle::State_MouseOver) {
            p->fillRect(option.rect, colors.color(Palette::Role::Gutter));
        }
        if (current)
            p->fillRect(QRect(option.rect.left(), option.rect.top(), 3, option.rect.height()), kAccent);
        const QRect r = option.rect.adjusted(12, 0, -8, 0);
        const QFontMetrics fm(option.font);
        const int rankWidth = fm.horizontalAdvance(QStringLiteral("Rank 0000"));
        p->setFont(option.font);
        p->setPen(colors.color(Palette::Role::Muted));
        p->drawText(QRect(r.left(), r.top(), rankWidth, r.height()), Qt::AlignVCenter | Qt::AlignLeft, rank);
        p->setPen(colors.color(Palette::Role::Title));
        const QRect nameRect(r.left() + rankWidth, r.top(), r.width() - rankWidth, r.height());
        p->drawText(nameRect, Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(name, Qt::ElideMiddle, nameRect.width()));
        p->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QSize s = QStyledItemDelegate::sizeHint(option, index);
        s.setHeight(std::max(s.height(), QFontMetrics(option.font).height() + 10));
        return s;
    }
};

constexpr int kVisibleRows = 10;
constexpr int kWidth = 560;

} // namespace

void TrackFinder::applyTheme()
{
    // The popup's chrome in the screen palette's colours, so it is dark on a dark desktop.
    const Palette &colors = Palette::screen();
    setStyleSheet(QStringLiteral("#rs_trackFinder { background: %1; border: 1px solid %2; border-radius: 6px; }"
                                 "#rs_trackFinder QLineEdit { border: 1px solid %2; border-radius: 4px; padding: 5px 8px;"
                                 " background: %1; color: %3; }"
                                 "#rs_trackFinder QLineEdit:focus { border-color: %4; }"
                                 "#rs_trackFinder QListView { border: none; background: %1; }")
                      .arg(colors.css(Palette::Role::Base), colors.css(Palette::Role::GutterBorder), colors.css(Palette::Role::Title),
                           kAccent.name()));
}

void TrackFinder::changeEvent(QEvent *event)
{
    // The style sheet is rebuilt after the change it answers (the theme switched).
    if ((event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange) && !m_theming) {
        m_theming = true;
        applyTheme();
        m_theming = false;
    }
    QFrame::changeEvent(event);
}

TrackFinder::TrackFinder(TimelineView *view)
    : QFrame(view)
    , m_view(view)
    , m_edit(new QLineEdit(this))
    , m_list(new QListView(this))
    , m_model(new TrackFinderModel(this))
    , m_filter(new TrackFinderFilter(this))
{
    setObjectName(QStringLiteral("rs_trackFinder"));
    setFrameShape(QFrame::NoFrame);
    setAutoFillBackground(true);
    applyTheme();
    auto *shadow = new QGraphicsDropShadowEffect(this);
    shadow->setBlurRadius(18);
    shadow->setOffset(0, 3);
    shadow->setColor(QColor(0, 0, 0, 60));
    setGraphicsEffect(shadow);

    m_edit->setPlaceholderText(tr("Find a track: rank (r2), thread, stream, counter…"));
    m_edit->setClearButtonEnabled(true);
    m_edit->installEventFilter(this);
    m_filter->setSourceModel(m_model);
    m_list->setModel(m_filter);
    m_list->setItemDelegate(new RowDelegate(m_list));
    m_list->setFocusPolicy(Qt::NoFocus); // typing stays in the line edit
    m_list->setMouseTracking(true);
    m_list->setUniformItemSizes(true);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(4);
    layout->addWidget(m_edit);
    layout->addWidget(m_list);

    connect(m_edit, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_filter->setQuery(text);
        m_list->setCurrentIndex(m_filter->index(0, 0));
        place(); // fewer rows: a shorter popup
    });
    connect(m_list, &QListView::clicked, this, &TrackFinder::activate);
    view->installEventFilter(this); // to follow the view's size
    hide();
}

void TrackFinder::open(const Session *session, const EvidenceIndex *evidence)
{
    m_model->setSession(session, evidence);
    m_list->setCurrentIndex(m_filter->index(0, 0));
    place();
    show();
    raise();
    m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll(); // the last query, replaced by typing
}

void TrackFinder::dismiss()
{
    hide();
    m_view->setFocus(Qt::OtherFocusReason);
}

void TrackFinder::place()
{
    const QRect vp = m_view->viewport()->geometry();
    const int width = std::min(kWidth, std::max(200, m_view->width() - 40));
    const int rows = std::min(kVisibleRows, m_filter->rowCount());
    const int rowHeight = m_list->sizeHintForRow(0) > 0 ? m_list->sizeHintForRow(0) : fontMetrics().height() + 10;
    m_list->setVisible(rows > 0);
    const QMargins m = layout()->contentsMargins();
    int height = m.top() + m_edit->sizeHint().height() + m.bottom();
    if (rows > 0)
        height += layout()->spacing() + rows * rowHeight + 2 * m_list->frameWidth();
    // Just under the ruler, centred over the time axis like an omnibox.
    setGeometry((m_view->width() - width) / 2, vp.top() + 8, width, std::min(height, std::max(80, vp.height() - 16)));
}

void TrackFinder::moveCurrent(int delta)
{
    const int count = m_filter->rowCount();
    if (count == 0)
        return;
    const int row = std::clamp(m_list->currentIndex().row() + delta, 0, count - 1);
    m_list->setCurrentIndex(m_filter->index(row, 0));
}

void TrackFinder::activate(const QModelIndex &index)
{
    if (!index.isValid())
        return;
    const RankId rank = index.data(TrackFinderModel::RankRole).toInt();
    const TrackId track = index.data(TrackFinderModel::TrackRole).toUInt();
    const QString kind = index.data(TrackFinderModel::LaneKindRole).toString();
    dismiss();
    if (goToLane(m_view, rank, kind, track))
        Q_EMIT laneChosen(rank, track);
}

bool TrackFinder::goToLane(TimelineView *view, RankId rank, const QString &kind, TrackId track)
{
    if (!view->groupStack().find(rank))
        return false;
    view->viewState()->setRankHidden(rank, false);
    view->viewState()->setRankCollapsed(rank, false);
    RankGroupWidget *g = view->rankGroup(rank); // laid out again, and bound to a widget to flash
    const Lane *lane = nullptr;
    if (track != kNoTrack) {
        lane = g->layout().laneForTrack(track);
    } else {
        lane = g->layout().lane(kind.toStdString());
    }
    if (!lane)
        return false;
    // Centre the lane when it fits; a lane taller than the view shows its top.
    view->ensureLaneVisible(g->y() + lane->top, lane->height);
    new LaneFlash(g, QRect(0, lane->top, g->width(), lane->height));
    return true;
}

bool TrackFinder::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view && event->type() == QEvent::Resize && isVisible())
        place();
    if (watched != m_edit)
        return QFrame::eventFilter(watched, event);
    if (event->type() == QEvent::FocusOut) {
        // A click elsewhere closes, like any popup; a click in the list keeps the focus here.
        QWidget *to = QApplication::focusWidget();
        if (!to || !isAncestorOf(to))
            hide();
        return false;
    }
    if (event->type() != QEvent::KeyPress)
        return false;
    auto *key = static_cast<QKeyEvent *>(event);
    switch (key->key()) {
    case Qt::Key_Down: moveCurrent(1); return true;
    case Qt::Key_Up: moveCurrent(-1); return true;
    case Qt::Key_PageDown: moveCurrent(kVisibleRows - 1); return true;
    case Qt::Key_PageUp: moveCurrent(-(kVisibleRows - 1)); return true;
    case Qt::Key_Return:
    case Qt::Key_Enter: activate(m_list->currentIndex()); return true;
    case Qt::Key_Escape: dismiss(); return true;
    default: return false;
    }
}

} // namespace rs
