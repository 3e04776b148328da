#pragma once
// The `?` sheet: every key and mouse gesture of the timeline on one page. The table is data, so the
// sheet and the tests read the same list.

#include <QDialog>
#include <QString>

#include <vector>

namespace rs {

class ShortcutSheet : public QDialog
{
    Q_OBJECT
public:
    /// One line of the sheet.
    struct Entry {
        QString section; ///< heading the line appears under ("Navigate")
        QString keys;    ///< keys or gesture as shown ("W / S")
        QString action;  ///< what it does
    };

    explicit ShortcutSheet(QWidget *parent = nullptr);

    /// Every entry, grouped by section in display order.
    static std::vector<Entry> entries();
};

} // namespace rs
