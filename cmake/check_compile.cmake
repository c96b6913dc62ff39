# Compiles one source file with -fsyntax-only and judges the result (run with cmake -P):
#   EXPECT=pass: the compiler must succeed (a proof: every static_assert holds).
#   EXPECT=fail: the compiler must fail AND its output must match every regular expression given
#                in the source as a line "// expect-error: <regex>" (a false claim, or bad input,
#                rejected for the right reason - not for any error).
# Variables: COMPILER, SOURCE, EXPECT, FLAGS (separated by |).
cmake_minimum_required(VERSION 3.25)
foreach(var COMPILER SOURCE EXPECT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_compile.cmake: ${var} is not set")
  endif()
endforeach()

string(REPLACE "|" ";" FLAGS "${FLAGS}")
set(ENV{LC_ALL} C)  # plain ASCII quotes in diagnostics
execute_process(COMMAND ${COMPILER} ${FLAGS} -fsyntax-only ${SOURCE}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(log "${out}${err}")

if(EXPECT STREQUAL "pass")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${SOURCE} must compile (it is a proof) but did not:\n${log}")
  endif()
  message(STATUS "proved: ${SOURCE}")
  return()
endif()

file(STRINGS ${SOURCE} expectations REGEX "^// expect-error: ")
if(NOT expectations)
  message(FATAL_ERROR "${SOURCE} has no '// expect-error: <regex>' line: a compile-fail case must say which diagnostic it expects")
endif()
if(status EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it must be rejected")
endif()
foreach(line IN LISTS expectations)
  string(REGEX REPLACE "^// expect-error: " "" pattern "${line}")
  string(STRIP "${pattern}" pattern)
  if(pattern STREQUAL "")
    message(FATAL_ERROR "${SOURCE} has an empty '// expect-error:' line, which would match any failure")
  endif()
  # The patterns are literal text: escape regex metacharacters.
  string(REGEX REPLACE "([][.*+?^$(){}|\\\\])" "\\\\\\1" escaped "${pattern}")
  if(NOT log MATCHES "${escaped}")
    message(FATAL_ERROR "${SOURCE} failed to compile, but not with the expected diagnostic\n  expected: ${pattern}\ncompiler output:\n${log}")
  endif()
endforeach()
message(STATUS "rejected as expected: ${SOURCE}")
