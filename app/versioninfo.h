#pragma once
// What `rankscope --version` and Help ▸ About say: RankScope's version (with `git describe` when
// it was built from a checkout) and the versions of the libraries it runs with.

#include <QString>
#include <QStringList>

namespace rs {

class VersionInfo
{
public:
    /// "0.1.0 (git 7415a44-dirty)", or "0.1.0" when not built from a git checkout.
    static QString version();
    /// `git describe --always --dirty --tags` of the checkout it was built from, "" when none.
    static QString gitDescribe();
    /// "Qt 6.4.2", "QCustomPlot 2.1.0", "zstd 1.5.4", "nlohmann_json 3.11.2", "SQLite 3.40.1".
    static QStringList libraries();
    /// `--version`'s text: "rankscope VERSION" and one indented line per library.
    static QString text();
};

} // namespace rs
