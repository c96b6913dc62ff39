# qkov_add_compile_check(NAME <test> SOURCE <file> EXPECT pass|fail [KIND gcc|clang] [FLAGS ...] [LABELS ...])
# Registers a CTest test that compiles SOURCE against qkov's headers and judges the outcome with
# cmake/check_compile.cmake. Direct compiler calls (not build targets) keep the tests parallel-safe.
# Without KIND the project's own compiler judges (its kind from CMAKE_CXX_COMPILER_ID); KIND clang
# with a g++ build uses QKOV_CLANG_COMPILER, the second, independent constant evaluator.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(QKOV_COMPILER_KIND clang)
else()
  set(QKOV_COMPILER_KIND gcc)
endif()

function(qkov_add_compile_check)
  cmake_parse_arguments(ARG "" "NAME;SOURCE;EXPECT;KIND" "FLAGS;LABELS" ${ARGN})
  if(NOT ARG_KIND OR ARG_KIND STREQUAL QKOV_COMPILER_KIND)
    set(ARG_KIND ${QKOV_COMPILER_KIND})
    set(compiler ${CMAKE_CXX_COMPILER})
  else()
    set(compiler ${QKOV_CLANG_COMPILER})
  endif()
  set(flags -std=c++20 -Wall -Wextra -I${PROJECT_SOURCE_DIR}/include ${ARG_FLAGS})
  foreach(dir IN LISTS Boost_INCLUDE_DIRS)
    if(NOT dir STREQUAL "/usr/include")  # -isystem on the default path breaks #include_next
      list(APPEND flags -isystem ${dir})
    endif()
  endforeach()
  string(REPLACE ";" "|" flags_arg "${flags}")  # | separates flags on the command line
  add_test(NAME ${ARG_NAME}
           COMMAND ${CMAKE_COMMAND} -DCOMPILER=${compiler} -DKIND=${ARG_KIND} -DSOURCE=${ARG_SOURCE}
                   -DEXPECT=${ARG_EXPECT} "-DFLAGS=${flags_arg}" -P ${PROJECT_SOURCE_DIR}/cmake/check_compile.cmake)
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}")
endfunction()
