# Compiles one source file with -fsyntax-only and judges the result (run with cmake -P):
#   EXPECT=pass: the compiler must succeed (a proof: every static_assert holds).
#   EXPECT=fail: the compiler must fail AND its output must match every diagnostic the source pins
#                for this compiler, one per line "// expect-error-<KIND>: <text>" with KIND gcc or
#                clang (a false claim, or bad input, rejected for the right reason - not for any
#                error). Each compiler words its diagnostics differently, so each has its own lines,
#                and a case without a line for the compiler judging it is an error, not a pass.
# A source may add flags of its own with a line "// compile-flags: <flags separated by spaces>".
# The standard headers every check shares come precompiled (PRELUDE_FILE, used through
# PRELUDE_FLAGS, both from qkov_compile_check_prelude_use in CompileChecks.cmake), except for a source with flags of its own,
# which the precompiled header was not made with. A precompiled header that does not fit is an
# error, never a silent slow path (g++: -Werror=invalid-pch; clang refuses one by itself).
# Variables: COMPILER, KIND (gcc or clang), SOURCE, EXPECT, FLAGS (separated by |), PRELUDE_FILE
# and PRELUDE_FLAGS (separated by |) optional.
cmake_minimum_required(VERSION 3.25)
foreach(var COMPILER KIND SOURCE EXPECT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_compile.cmake: ${var} is not set")
  endif()
endforeach()
if(NOT KIND MATCHES "^(gcc|clang)$")
  message(FATAL_ERROR "check_compile.cmake: KIND must be gcc or clang, not '${KIND}'")
endif()

string(REPLACE "|" ";" FLAGS "${FLAGS}")
file(STRINGS ${SOURCE} own_flags REGEX "^// compile-flags: ")
foreach(line IN LISTS own_flags)
  string(REGEX REPLACE "^// compile-flags: " "" line "${line}")
  separate_arguments(line UNIX_COMMAND "${line}")
  list(APPEND FLAGS ${line})
endforeach()
if(PRELUDE_FILE AND NOT own_flags)
  if(NOT EXISTS ${PRELUDE_FILE})
    message(FATAL_ERROR "${PRELUDE_FILE} is missing: build the project (cmake --build) before running the compile checks")
  endif()
  string(REPLACE "|" ";" PRELUDE_FLAGS "${PRELUDE_FLAGS}")
  list(APPEND FLAGS ${PRELUDE_FLAGS})
endif()
set(ENV{LC_ALL} C)  # plain ASCII quotes in diagnostics
execute_process(COMMAND ${COMPILER} ${FLAGS} -fsyntax-only ${SOURCE}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(log "${out}${err}")
# A refused precompiled header is the harness's failure, whatever the check expects: a case that
# must fail would otherwise pass on its own diagnostic beside this one.
if(log MATCHES "invalid-pch|PCH file|precompiled header|precompiled file|AST file")
  message(FATAL_ERROR "${SOURCE}: the compile checks' precompiled standard headers (${PRELUDE_FILE}) were refused; rebuild them (cmake --build):\n${log}")
endif()

if(EXPECT STREQUAL "pass")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${SOURCE} must compile with ${KIND} (${COMPILER}) but did not:\n${log}")
  endif()
  message(STATUS "proved (${KIND}): ${SOURCE}")
  return()
endif()

file(STRINGS ${SOURCE} expectations REGEX "^// expect-error-${KIND}: ")
if(NOT expectations)
  message(FATAL_ERROR "${SOURCE} has no '// expect-error-${KIND}: <text>' line: a compile-fail case must say which diagnostic it expects from each compiler")
endif()
if(status EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled with ${KIND} (${COMPILER}), but it must be rejected")
endif()
foreach(line IN LISTS expectations)
  string(REGEX REPLACE "^// expect-error-${KIND}: " "" pattern "${line}")
  string(STRIP "${pattern}" pattern)
  if(pattern STREQUAL "")
    message(FATAL_ERROR "${SOURCE} has an empty '// expect-error-${KIND}:' line, which would match any failure")
  endif()
  # The patterns are literal text: escape regex metacharacters.
  string(REGEX REPLACE "([][.*+?^$(){}|\\\\])" "\\\\\\1" escaped "${pattern}")
  if(NOT log MATCHES "${escaped}")
    message(FATAL_ERROR "${SOURCE} failed to compile with ${KIND} (${COMPILER}), but not with the expected diagnostic\n  expected: ${pattern}\ncompiler output:\n${log}")
  endif()
endforeach()
message(STATUS "rejected as expected (${KIND}): ${SOURCE}")
