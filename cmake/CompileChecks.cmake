# qkov_add_compile_check(NAME <test> SOURCE <file> EXPECT pass|fail [FLAGS ...])
# Registers a CTest test that compiles SOURCE against qkov's headers and judges the outcome with
# cmake/check_compile.cmake. Direct compiler calls (not build targets) keep the tests parallel-safe.
function(qkov_add_compile_check)
  cmake_parse_arguments(ARG "" "NAME;SOURCE;EXPECT" "FLAGS;LABELS" ${ARGN})
  set(flags -std=c++20 -Wall -Wextra -I${PROJECT_SOURCE_DIR}/include ${ARG_FLAGS})
  foreach(dir IN LISTS Boost_INCLUDE_DIRS)
    if(NOT dir STREQUAL "/usr/include")  # -isystem on the default path breaks #include_next
      list(APPEND flags -isystem ${dir})
    endif()
  endforeach()
  string(REPLACE ";" "|" flags_arg "${flags}")  # | separates flags on the command line
  add_test(NAME ${ARG_NAME}
           COMMAND ${CMAKE_COMMAND} -DCOMPILER=${CMAKE_CXX_COMPILER} -DSOURCE=${ARG_SOURCE} -DEXPECT=${ARG_EXPECT}
                   "-DFLAGS=${flags_arg}" -P ${PROJECT_SOURCE_DIR}/cmake/check_compile.cmake)
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}")
endfunction()
