# qkov_add_compile_check(NAME <test> SOURCE <file> EXPECT pass|fail [KIND gcc|clang] [FLAGS ...] [LABELS ...]
#                        [PRELUDE_DIALECT c++20|gnu++20])
# Registers a CTest test that compiles SOURCE against qkov's headers and judges the outcome with
# cmake/check_compile.cmake. Direct compiler calls (not build targets) keep the tests parallel-safe.
# Without KIND the project's own compiler judges (its kind from CMAKE_CXX_COMPILER_ID); KIND clang
# with a g++ build uses QKOV_CLANG_COMPILER, the second, independent constant evaluator.
# PRELUDE_DIALECT uses another dialect's precompiled standard headers than the check's own: only
# for the test that the harness refuses them.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(QKOV_COMPILER_KIND clang)
else()
  set(QKOV_COMPILER_KIND gcc)
endif()

# qkov_compile_check_prelude(KIND <gcc|clang> COMPILER <path>): precompiles
# tests/compile_check_prelude.hpp (standard headers only) for one compiler in both dialects the
# checks use, -std=c++20 and -std=gnu++20, with the checks' own warning flags, as part of the build
# (target qkov_compile_check_prelude), into <build>/compile-check-prelude/<kind>/<dialect>/. The
# checks of that compiler registered after this call use it.
set(QKOV_COMPILE_CHECK_PRELUDE ${PROJECT_SOURCE_DIR}/tests/compile_check_prelude.hpp)
function(qkov_compile_check_prelude)
  cmake_parse_arguments(ARG "" "KIND;COMPILER" "" ${ARGN})
  if(TARGET qkov_compile_check_prelude_${ARG_KIND})  # a clang build judging with clang twice
    return()
  endif()
  set(dir ${PROJECT_BINARY_DIR}/compile-check-prelude/${ARG_KIND})
  set(outputs)
  set_property(GLOBAL PROPERTY QKOV_COMPILE_CHECK_PRELUDE_${ARG_KIND} ${dir})
  foreach(dialect c++20 gnu++20)
    qkov_compile_check_prelude_use(${ARG_KIND} ${dialect} output unused)
    if(ARG_KIND STREQUAL "gcc")
      # g++ takes <header>.gch beside the header -include names (one candidate only: with several
      # in a .gch directory, -Werror=invalid-pch fails on the first that does not fit); the copy
      # of the header is what -include names.
      configure_file(${QKOV_COMPILE_CHECK_PRELUDE} ${dir}/${dialect}/compile_check_prelude.hpp COPYONLY)
    endif()
    # Rebuilt when the compiler or any standard header it read changes (the depfile), not only
    # the prelude: an upgraded g++ refuses an older header, and clang does not look at the system
    # headers a header it precompiled read.
    add_custom_command(OUTPUT ${output}
                       COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}/${dialect}
                       COMMAND ${ARG_COMPILER} -std=${dialect} -Wall -Wextra -x c++-header ${QKOV_COMPILE_CHECK_PRELUDE} -o ${output}
                               -MD -MF ${output}.d -MT ${output}
                       DEPENDS ${QKOV_COMPILE_CHECK_PRELUDE} ${ARG_COMPILER} DEPFILE ${output}.d
                       COMMENT "Precompiling the compile checks' standard headers (${ARG_KIND}, -std=${dialect})" VERBATIM)
    list(APPEND outputs ${output})
  endforeach()
  if(NOT TARGET qkov_compile_check_prelude)
    add_custom_target(qkov_compile_check_prelude ALL)
  endif()
  add_custom_target(qkov_compile_check_prelude_${ARG_KIND} DEPENDS ${outputs})
  add_dependencies(qkov_compile_check_prelude qkov_compile_check_prelude_${ARG_KIND})
endfunction()

# qkov_compile_check_prelude_use(KIND DIALECT FILE_VAR FLAGS_VAR): the precompiled file a check of
# KIND in DIALECT needs, and the flags that use it (empty when no prelude was made for KIND).
function(qkov_compile_check_prelude_use kind dialect file_var flags_var)
  get_property(dir GLOBAL PROPERTY QKOV_COMPILE_CHECK_PRELUDE_${kind})
  set(file)
  set(flags)
  if(dir AND kind STREQUAL "gcc")
    set(file ${dir}/${dialect}/compile_check_prelude.hpp.gch)
    set(flags -include ${dir}/${dialect}/compile_check_prelude.hpp -Werror=invalid-pch)
  elseif(dir)
    set(file ${dir}/${dialect}/compile_check_prelude.pch)
    set(flags -include-pch ${file})
  endif()
  set(${file_var} "${file}" PARENT_SCOPE)
  set(${flags_var} "${flags}" PARENT_SCOPE)
endfunction()

function(qkov_add_compile_check)
  cmake_parse_arguments(ARG "" "NAME;SOURCE;EXPECT;KIND;PRELUDE_DIALECT" "FLAGS;LABELS" ${ARGN})
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
  set(dialect c++20)
  if("-std=gnu++20" IN_LIST ARG_FLAGS)  # a later -std wins
    set(dialect gnu++20)
  endif()
  if(ARG_PRELUDE_DIALECT)  # another dialect's precompiled prelude: only the test that it is refused
    set(dialect ${ARG_PRELUDE_DIALECT})
  endif()
  qkov_compile_check_prelude_use(${ARG_KIND} ${dialect} prelude_file prelude_flags)
  string(REPLACE ";" "|" prelude_flags "${prelude_flags}")
  add_test(NAME ${ARG_NAME}
           COMMAND ${CMAKE_COMMAND} -DCOMPILER=${compiler} -DKIND=${ARG_KIND} -DSOURCE=${ARG_SOURCE}
                   -DEXPECT=${ARG_EXPECT} "-DFLAGS=${flags_arg}" "-DPRELUDE_FILE=${prelude_file}"
                   "-DPRELUDE_FLAGS=${prelude_flags}" -P ${PROJECT_SOURCE_DIR}/cmake/check_compile.cmake)
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}")
endfunction()
