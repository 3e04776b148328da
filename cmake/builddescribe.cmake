# Writes OUTPUT, a header defining RANKSCOPE_BUILD_DESCRIBE: `git describe --always --dirty --tags`
# of SOURCE_DIR when it is a git checkout and git runs, else "". Run at every build (the
# rankscope_builddescribe target); the header is rewritten only when the text changes, so only
# versioninfo.cpp is compiled again, and only then.
set(describe "")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" describe --always --dirty --tags
                  OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    set(describe "${out}")
  endif()
endif()
set(content "#pragma once\n#define RANKSCOPE_BUILD_DESCRIBE \"${describe}\"\n")
set(old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUTPUT}" "${content}")
endif()
