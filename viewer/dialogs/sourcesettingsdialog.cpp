#include "sourcesettingsdialog.h"

#include "palette.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimeZone>
#include <QVBoxLayout>

#include <set>

namespace rs {

namespace {

constexpr int kMaxRank = 1 << 20;

QLabel *note(const QString &text)
{
    auto *l = new QLabel(text);
    l->setWordWrap(true);
    l->setStyleSheet(QStringLiteral("color: %1;").arg(Palette::screen().css(Palette::Role::AxisText)));
    return l;
}

} // namespace

SourceSettingsDialog::SourceSettingsDialog(const SourceSettings &settings, QWidget *parent)
    : QDialog(parent)
    , m_in(settings)
{
    setWindowTitle(tr("Source Settings"));
    auto *heading = new QLabel(QStringLiteral("<b>%1</b> &nbsp;<span style='color:%3'>%2</span>")
                                   .arg(QFileInfo(settings.path).fileName().toHtmlEscaped(), settings.format.toHtmlEscaped(),
                                        Palette::screen().css(Palette::Role::Muted)));
    heading->setToolTip(settings.path);
    m_error = new QLabel;
    m_error->setStyleSheet(QStringLiteral("color: #b42318;"));
    m_error->hide();
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Apply and Reload"));
    connect(buttons, &QDialogButtonBox::accepted, this, &SourceSettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(heading);
    layout->addWidget(settings.multiRank ? createMapGroup() : createRankGroup());
    layout->addWidget(createZoneGroup());
    layout->addWidget(m_error);
    layout->addWidget(buttons);
    resize(520, settings.multiRank ? 540 : sizeHint().height());
}

QWidget *SourceSettingsDialog::createRankGroup()
{
    auto *box = new QGroupBox(tr("Rank"));
    const QString now = m_in.currentRank >= 0 ? tr("Now rank %1, from %2.").arg(m_in.currentRank).arg(m_in.rankOrigin)
                                              : tr("Now without a rank.");
    m_override = new QCheckBox(tr("Assign this file to rank"));
    m_rank = new QSpinBox;
    m_rank->setRange(0, kMaxRank);
    m_rank->setValue(m_in.rankOverride.value_or(std::max<RankId>(0, m_in.currentRank)));
    m_override->setChecked(m_in.rankOverride.has_value());
    m_rank->setEnabled(m_override->isChecked());
    connect(m_override, &QCheckBox::toggled, m_rank, &QWidget::setEnabled);
    auto *row = new QHBoxLayout;
    row->addWidget(m_override);
    row->addWidget(m_rank);
    row->addStretch(1);
    auto *v = new QVBoxLayout(box);
    v->addWidget(note(now + QLatin1Char(' ') + tr("Leave unchecked to let RankScope decide from the content, then the file name.")));
    v->addLayout(row);
    return box;
}

QWidget *SourceSettingsDialog::createMapGroup()
{
    auto *box = new QGroupBox(tr("Ranks"));
    m_map = new QTableWidget(static_cast<int>(m_in.currentMap.size()), 2);
    m_map->setHorizontalHeaderLabels({m_in.mapKeyName, tr("Rank")});
    m_map->verticalHeader()->hide();
    m_map->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_map->setSelectionMode(QAbstractItemView::NoSelection);
    m_map->setFocusPolicy(Qt::NoFocus); // the spin boxes take the focus, not the cells
    const std::map<int, RankId> &shown = m_in.rankMap ? *m_in.rankMap : m_in.currentMap;
    int row = 0;
    for (const auto &[key, rank] : m_in.currentMap) {
        auto *keyItem = new QTableWidgetItem(QString::number(key));
        keyItem->setFlags(Qt::ItemIsEnabled);
        keyItem->setData(Qt::UserRole, key);
        m_map->setItem(row, 0, keyItem);
        auto *spin = new QSpinBox;
        spin->setRange(0, kMaxRank);
        const auto it = shown.find(key);
        spin->setValue(it != shown.end() ? it->second : rank);
        spin->setFrame(false);
        connect(spin, &QSpinBox::valueChanged, this, &SourceSettingsDialog::updateMapWarning);
        m_map->setCellWidget(row, 1, spin);
        ++row;
    }
    m_map->verticalHeader()->setDefaultSectionSize(m_map->fontMetrics().height() + 10);
    m_mapWarning = new QLabel;
    m_mapWarning->setWordWrap(true);
    m_mapWarning->setStyleSheet(QStringLiteral("color: #a15c07;"));
    auto *automatic = new QPushButton(tr("Automatic"));
    automatic->setToolTip(tr("Drop your mapping and let RankScope decide again"));
    automatic->setEnabled(m_in.rankMap.has_value());
    connect(automatic, &QPushButton::clicked, this, [this, automatic] {
        // What "automatic" gives is only known after the reload (NCCL lines may decide it).
        m_mapReset = true;
        m_map->setEnabled(false);
        automatic->setEnabled(false);
        m_mapWarning->setText(tr("The mapping will be decided again when the files are reloaded."));
    });
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_mapWarning, 1);
    buttons->addWidget(automatic);
    auto *v = new QVBoxLayout(box);
    v->addWidget(note(tr("This file feeds several ranks. Current mapping: %1. Change a rank when the GPUs of this host "
                         "are not the job's ranks in order (several hosts, CUDA_VISIBLE_DEVICES).")
                          .arg(m_in.mapOrigin)));
    v->addWidget(m_map, 1);
    v->addLayout(buttons);
    updateMapWarning();
    return box;
}

QWidget *SourceSettingsDialog::createZoneGroup()
{
    auto *box = new QGroupBox(tr("Time zone (whole session)"));
    m_zone = new QComboBox;
    m_zone->setEditable(true);
    m_zone->setInsertPolicy(QComboBox::NoInsert);
    const QString system = QString::fromUtf8(QTimeZone::systemTimeZoneId());
    m_zone->addItem(tr("Local (%1)").arg(system.isEmpty() ? tr("this machine") : system), QString());
    m_zone->addItem(QStringLiteral("UTC"), QStringLiteral("UTC"));
    for (const QByteArray &id : QTimeZone::availableTimeZoneIds()) {
        const QString s = QString::fromUtf8(id);
        if (s != QLatin1String("UTC"))
            m_zone->addItem(s, s);
    }
    m_zone->completer()->setFilterMode(Qt::MatchContains);
    m_zone->completer()->setCompletionMode(QCompleter::PopupCompletion);
    const int current = m_zone->findData(m_in.timeZone);
    m_zone->setCurrentIndex(current >= 0 ? current : 0);
    if (current < 0 && !m_in.timeZone.isEmpty())
        m_zone->setEditText(m_in.timeZone);
    auto *form = new QFormLayout;
    form->addRow(tr("Zone of time stamps without one:"), m_zone);
    auto *v = new QVBoxLayout(box);
    v->addLayout(form);
    v->addWidget(note(m_in.zoneSources.isEmpty()
                          ? tr("No loaded file needs it now; it applies to nvidia-smi CSVs and logs whose time stamps name no zone.")
                          : tr("Applies to: %1. Profiler traces carry their own clock and are not affected.")
                                .arg(m_in.zoneSources.join(QStringLiteral(", ")))));
    return box;
}

QSpinBox *SourceSettingsDialog::mapRankSpin(int row) const
{
    return m_map ? qobject_cast<QSpinBox *>(m_map->cellWidget(row, 1)) : nullptr;
}

std::map<int, RankId> SourceSettingsDialog::editedMap() const
{
    std::map<int, RankId> out;
    for (int r = 0; m_map && r < m_map->rowCount(); ++r)
        out[m_map->item(r, 0)->data(Qt::UserRole).toInt()] = mapRankSpin(r)->value();
    return out;
}

void SourceSettingsDialog::updateMapWarning()
{
    // Two GPUs on one rank is allowed (their curves share the rank's chart), but rarely meant.
    std::map<RankId, QStringList> byRank;
    for (const auto &[key, rank] : editedMap())
        byRank[rank] << QString::number(key);
    QStringList clashes;
    for (const auto &[rank, keys] : byRank)
        if (keys.size() > 1)
            clashes << tr("%1 %2 → rank %3").arg(m_in.mapKeyName, keys.join(QStringLiteral(", "))).arg(rank);
    m_mapWarning->setText(clashes.isEmpty() ? QString() : tr("Shared ranks: %1").arg(clashes.join(QStringLiteral("; "))));
}

QString SourceSettingsDialog::zoneId() const
{
    // A typed id that matches an entry uses the entry's data; the "Local" entry is empty.
    const int i = m_zone->findText(m_zone->currentText());
    if (i >= 0)
        return m_zone->itemData(i).toString();
    return m_zone->currentText().trimmed();
}

SourceSettings SourceSettingsDialog::settings() const
{
    SourceSettings out = m_in;
    if (m_override)
        out.rankOverride = m_override->isChecked() ? std::optional<RankId>(m_rank->value()) : std::nullopt;
    if (m_map) {
        const std::map<int, RankId> edited = editedMap();
        if (m_mapReset)
            out.rankMap = std::nullopt;
        else
            out.rankMap = (edited != m_in.currentMap || m_in.rankMap.has_value()) ? std::optional(edited) : std::nullopt;
    }
    out.timeZone = zoneId();
    return out;
}

void SourceSettingsDialog::accept()
{
    const QString zone = zoneId();
    if (!zone.isEmpty() && !QTimeZone(zone.toUtf8()).isValid()) {
        m_error->setText(tr("'%1' is not a time zone this system knows (use an IANA id such as Europe/Berlin).").arg(zone));
        m_error->show();
        return;
    }
    QDialog::accept();
}

} // namespace rs
