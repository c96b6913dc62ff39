# Runs PROGRAM with ARGS ('|'-separated) and passes only if it exits nonzero AND its output
# (stdout + stderr) matches EXPECT: a bad argument must fail, with the message that explains it.
string(REPLACE "|" ";" arguments "${ARGS}")
execute_process(COMMAND ${PROGRAM} ${arguments} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(status EQUAL 0)
  message(FATAL_ERROR "expected a failure, the command succeeded:\n${all}")
endif()
if(NOT all MATCHES "${EXPECT}")
  message(FATAL_ERROR "the failure message does not match '${EXPECT}':\n${all}")
endif()
