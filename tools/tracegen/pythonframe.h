#pragma once
// One line of a Python traceback. The workload keeps a stack of these as it calls into the model,
// so that when an allocation fails the simulator knows the Python stack of the failing op and the
// job log can print the traceback a real run would have printed.

#include <string_view>

namespace rs::tracegen {

struct PythonFrame {
    std::string_view file;      ///< absolute path, as Python prints it
    int line = 0;
    std::string_view function;
    std::string_view code;      ///< the source line, stripped
    /// The line calls an nn.Module: the next frame is reached through Module.__call__, which adds
    /// the _wrapped_call_impl and _call_impl frames of torch/nn/modules/module.py.
    bool callsModule = false;
};

} // namespace rs::tracegen
