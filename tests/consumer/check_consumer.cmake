# Installs the qkov build tree into a scratch prefix, then configures, builds and runs
# tests/consumer against it with find_package(qkov CONFIG REQUIRED).
file(REMOVE_RECURSE ${WORK_DIR})
foreach(step
        "${CMAKE_COMMAND};--install;${QKOV_BINARY_DIR};--prefix;${WORK_DIR}/prefix"
        "${CMAKE_COMMAND};-S;${CONSUMER_SOURCE_DIR};-B;${WORK_DIR}/build;-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix"
        "${CMAKE_COMMAND};--build;${WORK_DIR}/build"
        "${WORK_DIR}/build/consumer")
  execute_process(COMMAND ${step} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "consumer check failed at: ${step}\n${out}${err}")
  endif()
endforeach()
message(STATUS "${out}")
