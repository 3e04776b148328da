#pragma once
// Pictures a test draws are kept only when asked: RANKSCOPE_SCREENSHOTS=DIR writes them there to
// look at; otherwise a test run leaves nothing behind (and parallel runs cannot collide).

#include <QDir>
#include <QImage>
#include <QString>

namespace rs::test {

/// Saves `image` as DIR/`name` when RANKSCOPE_SCREENSHOTS=DIR is set; true when nothing was asked
/// or the file was written.
inline bool keepScreenshot(const QImage &image, const QString &name)
{
    const QString dir = qEnvironmentVariable("RANKSCOPE_SCREENSHOTS");
    if (dir.isEmpty())
        return true;
    QDir().mkpath(dir);
    return image.save(QDir(dir).filePath(name));
}

} // namespace rs::test
