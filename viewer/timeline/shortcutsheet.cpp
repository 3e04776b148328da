#include "shortcutsheet.h"

#include <QDialogButtonBox>
#include <QFont>
#include <QGridLayout>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

namespace rs {

std::vector<ShortcutSheet::Entry> ShortcutSheet::entries()
{
    const QString nav = tr("Navigate");
    const QString sel = tr("Select");
    const QString win = tr("Window");
    const QString note = tr("Annotate");
    return {
        {nav, tr("W / S"), tr("Zoom in / out around the mouse (or the centre)")},
        {nav, tr("A / D  or  ← / →"), tr("Pan left / right")},
        {nav, tr("Ctrl + wheel"), tr("Zoom around the mouse")},
        {nav, tr("Wheel"), tr("Scroll ranks and lanes vertically")},
        {nav, tr("Shift + wheel"), tr("Pan left / right")},
        {nav, tr("Drag"), tr("Pan in time (and scroll vertically)")},
        {nav, tr("Drag on the ruler"), tr("Zoom to the dragged interval")},
        {nav, tr("Backspace  or  Alt + ←"), tr("Back to the previous zoom")},
        {nav, tr("Alt + →"), tr("Forward again")},
        {nav, tr("Ctrl + 0"), tr("Show the whole session")},
        {nav, tr("Ctrl + P"), tr("Find a track: type to filter, ↑ / ↓ to pick, Return to scroll to it")},
        {sel, tr("Click"), tr("Select the event under the mouse (details in the Details panel)")},
        {sel, tr("Double-click"), tr("Zoom to the event")},
        {sel, tr("F"), tr("Focus the selected event")},
        {sel, tr(". / ,"), tr("Select the next / previous event on the same level")},
        {sel, tr("Escape"), tr("Clear the selection")},
        {sel, tr("Click a rank header"), tr("Collapse or expand that rank")},
        {note, tr("Right-click"), tr("Add a note or an arrow here, mark the visible range or the selected event")},
        {note, tr("Shift + drag"), tr("Mark the dragged time range (on one rank, or across the ranks dragged over)")},
        {note, tr("Drag an annotation"), tr("Move it; drag an end of an arrow or range to move that end")},
        {note, tr("Double-click  or  Return"), tr("Edit the annotation's text and colour")},
        {note, tr("Delete  or  Backspace"), tr("Delete the selected annotation")},
        {note, tr("Ctrl + Z / Ctrl + Shift + Z"), tr("Undo / redo annotation changes")},
        {win, tr("Ctrl + O"), tr("Open files")},
        {win, tr("Ctrl + Shift + O"), tr("Open a folder")},
        {win, tr("Drop files or folders"), tr("Open them")},
        {win, tr("?"), tr("This sheet")},
    };
}

ShortcutSheet::ShortcutSheet(QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Keyboard and mouse"));
    auto *grid = new QGridLayout;
    grid->setHorizontalSpacing(24);
    grid->setVerticalSpacing(6);
    int row = 0;
    QString section;
    QFont heading = font();
    heading.setBold(true);
    heading.setPointSizeF(heading.pointSizeF() * 1.1);
    for (const Entry &e : entries()) {
        if (e.section != section) {
            section = e.section;
            auto *h = new QLabel(section);
            h->setFont(heading);
            h->setContentsMargins(0, row ? 10 : 0, 0, 2);
            grid->addWidget(h, row++, 0, 1, 2);
        }
        auto *keys = new QLabel(QStringLiteral("<code>%1</code>").arg(e.keys.toHtmlEscaped()));
        keys->setTextFormat(Qt::RichText);
        grid->addWidget(keys, row, 0, Qt::AlignLeft | Qt::AlignTop);
        auto *action = new QLabel(e.action);
        action->setWordWrap(true);
        grid->addWidget(action, row, 1);
        ++row;
    }
    grid->setColumnStretch(1, 1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(grid);
    layout->addWidget(buttons);
    resize(560, sizeHint().height());
}

} // namespace rs
