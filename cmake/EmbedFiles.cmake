# swprof_embed_files(OUTPUT <file.cpp> NAMESPACE <ns> FILES <symbol>=<path> ...)
#
# Generates, at build time, a C++ source that defines for every input file
#   constexpr std::string_view <symbol> = "...";   // the file's bytes
# in namespace <ns>, so the program needs no file at run time. Paths are
# relative to the calling CMakeLists.txt. The generated file is rebuilt when an
# input or embed_files_script.cmake changes. A hand-written header declares
# the symbols (extern const std::string_view <symbol>;).
set(SWPROF_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_files_script.cmake)

function(swprof_embed_files)
  cmake_parse_arguments(ARG "" "OUTPUT;NAMESPACE" "FILES" ${ARGN})
  set(symbols "")
  set(paths "")
  foreach(item ${ARG_FILES})
    string(FIND "${item}" "=" eq)
    string(SUBSTRING "${item}" 0 ${eq} symbol)
    math(EXPR rest "${eq} + 1")
    string(SUBSTRING "${item}" ${rest} -1 path)
    get_filename_component(path "${path}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND symbols "${symbol}")
    list(APPEND paths "${path}")
  endforeach()
  string(REPLACE ";" "|" symbols_arg "${symbols}")
  string(REPLACE ";" "|" paths_arg "${paths}")
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${ARG_OUTPUT} -DNAMESPACE=${ARG_NAMESPACE}
            "-DSYMBOLS=${symbols_arg}" "-DPATHS=${paths_arg}" -P ${SWPROF_EMBED_SCRIPT}
    DEPENDS ${paths} ${SWPROF_EMBED_SCRIPT}
    COMMENT "Embedding ${ARG_NAMESPACE} assets"
    VERBATIM)
endfunction()
