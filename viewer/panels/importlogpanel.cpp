#include "importlogpanel.h"

#include "palette.h"

#include "models/diagnosticsmodel.h"
#include "models/importlogmodel.h"
#include "plural.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace rs {

namespace {

QTableView *makeTable(QAbstractItemModel *model)
{
    auto *view = new QTableView;
    view->setModel(model);
    view->setSortingEnabled(true);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->setShowGrid(false);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setHighlightSections(false);
    view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    return view;
}

QSortFilterProxyModel *makeProxy(QAbstractItemModel *source, int sortRole, QObject *parent)
{
    auto *proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(source);
    proxy->setSortRole(sortRole);
    proxy->setFilterKeyColumn(-1);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    return proxy;
}

} // namespace

ImportLogPanel::ImportLogPanel(QWidget *parent)
    : QWidget(parent)
    , m_sources(new ImportLogModel(this))
    , m_diagnostics(new DiagnosticsModel(this))
{
    m_sourcesProxy = makeProxy(m_sources, ImportLogModel::SortRole, this);
    m_diagnosticsProxy = makeProxy(m_diagnostics, DiagnosticsModel::SortRole, this);

    m_filter = new QLineEdit;
    m_filter->setPlaceholderText(tr("Filter files and messages"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, &ImportLogPanel::setFilterText);
    m_summary = new QLabel;
    m_summary->setStyleSheet(QStringLiteral("color: %1;").arg(Palette::screen().css(Palette::Role::Muted)));

    m_sourcesView = makeTable(m_sourcesProxy);
    m_sourcesView->sortByColumn(-1, Qt::AscendingOrder);
    m_diagnosticsView = makeTable(m_diagnosticsProxy);
    m_diagnosticsView->sortByColumn(-1, Qt::AscendingOrder);
    connect(m_sourcesView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ImportLogPanel::sourceSelectionChanged);

    m_settings = new QPushButton(tr("Source Settings…"));
    m_settings->setToolTip(tr("Rank, GPU → rank mapping and time zone of the selected file"));
    m_settings->setEnabled(false);
    auto *settingsAction = new QAction(tr("Source Settings…"), m_sourcesView);
    auto request = [this] {
        if (const auto id = selectedSource())
            Q_EMIT sourceSettingsRequested(*id);
    };
    connect(m_settings, &QPushButton::clicked, this, request);
    connect(settingsAction, &QAction::triggered, this, request);
    m_sourcesView->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_sourcesView->addAction(settingsAction);

    auto *top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_summary);
    top->addWidget(m_settings);
    auto *splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(m_sourcesView);
    splitter->addWidget(m_diagnosticsView);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);
    updateSummary();
}

void ImportLogPanel::setSession(SessionPtr session)
{
    m_sources->setSession(session);
    m_diagnostics->setSession(std::move(session));
    m_settings->setEnabled(selectedSource().has_value());
    for (int c : {ImportLogModel::FileColumn, ImportLogModel::FormatColumn, ImportLogModel::CompressionColumn,
                  ImportLogModel::RanksColumn})
        m_sourcesView->resizeColumnToContents(c);
    for (int c : {DiagnosticsModel::SeverityColumn, DiagnosticsModel::FileColumn, DiagnosticsModel::LineColumn,
                  DiagnosticsModel::OffsetColumn})
        m_diagnosticsView->resizeColumnToContents(c);
    updateSummary();
}

void ImportLogPanel::setFilterText(const QString &text)
{
    if (m_filter->text() != text)
        m_filter->setText(text);
    m_sourcesProxy->setFilterFixedString(text);
    m_diagnosticsProxy->setFilterFixedString(text);
}

void ImportLogPanel::setAnalysis(const std::shared_ptr<const AnalysisResult> &analysis)
{
    std::vector<std::pair<SourceId, Diagnostic>> later;
    if (analysis)
        for (const ExtentOutlier &o : analysis->extent.leftOut) {
            Diagnostic d;
            d.code = o.code;
            d.message = o.message;
            later.emplace_back(o.source, std::move(d));
        }
    m_diagnostics->setLaterDiagnostics(std::move(later));
    updateSummary();
}

std::optional<SourceId> ImportLogPanel::selectedSource() const
{
    const QModelIndexList rows = m_sourcesView->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return std::nullopt;
    return rows.front().data(ImportLogModel::SourceIdRole).toUInt();
}

void ImportLogPanel::sourceSelectionChanged()
{
    const QModelIndexList rows = m_sourcesView->selectionModel()->selectedRows();
    m_settings->setEnabled(!rows.isEmpty());
    if (rows.isEmpty()) {
        m_diagnostics->setSourceFilter(std::nullopt);
        return;
    }
    m_diagnostics->setSourceFilter(rows.front().data(ImportLogModel::SourceIdRole).toUInt());
}

void ImportLogPanel::updateSummary()
{
    const SessionPtr s = m_sources->session();
    if (!s) {
        m_summary->setText(tr("No files loaded"));
        return;
    }
    std::size_t errors = 0, warnings = 0;
    for (const Source &src : s->sources()) {
        errors += src.errorCount();
        warnings += src.warningCount();
    }
    m_summary->setText(countOf(static_cast<qint64>(s->sources().size()), tr("file"), tr("files")) + QStringLiteral(" · ")
                       + countOf(static_cast<qint64>(errors), tr("error"), tr("errors")) + QStringLiteral(" · ")
                       + countOf(static_cast<qint64>(warnings), tr("warning"), tr("warnings")));
}

} // namespace rs
