#pragma once
// A dark desktop theme for the length of a scope: the application palette a dark system theme
// gives (dark window, light text), put back when the scope ends, also when an assertion in it
// fails, so later tests of the same binary see the light desktop again.

#include <QColor>
#include <QGuiApplication>
#include <QPalette>

namespace rs::test {

class DarkDesktop
{
public:
    DarkDesktop()
        : m_before(QGuiApplication::palette())
    {
        QPalette dark = m_before;
        dark.setColor(QPalette::Window, QColor(0x20, 0x22, 0x26));
        dark.setColor(QPalette::WindowText, QColor(0xe6, 0xe8, 0xec));
        QGuiApplication::setPalette(dark);
    }
    ~DarkDesktop() { QGuiApplication::setPalette(m_before); }
    DarkDesktop(const DarkDesktop &) = delete;
    DarkDesktop &operator=(const DarkDesktop &) = delete;

private:
    QPalette m_before;
};

} // namespace rs::test
