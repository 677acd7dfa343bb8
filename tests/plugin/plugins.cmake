# The plugin tests (tests/plugin): small op libraries built as MODULEs, as a user builds a
# plugin, and the test executable that loads them with LoadOpLibrary.
function(oflite_test_plugin name source op)
  add_library(oflite_test_plugin_${name} MODULE plugin/libraries/${source})
  target_link_libraries(oflite_test_plugin_${name} PRIVATE oneflow_lite)
  target_compile_definitions(oflite_test_plugin_${name} PRIVATE OFLITE_TEST_PLUGIN_OP="${op}"
    ${ARGN})
endfunction()
oflite_test_plugin(good scale_op.cpp plugin.scale)
oflite_test_plugin(rival scale_op.cpp plugin.scale)  # the same op from another library
oflite_test_plugin(no_entry scale_op.cpp plugin.no_entry OFLITE_TEST_PLUGIN_NO_ENTRY)
oflite_test_plugin(old_version scale_op.cpp plugin.old_version OFLITE_TEST_PLUGIN_VERSION="0.0.7")
oflite_test_plugin(null_version scale_op.cpp plugin.null_version OFLITE_TEST_PLUGIN_VERSION=nullptr)
oflite_test_plugin(conflict conflict_op.cpp unused)
oflite_test_plugin(shadow shadow_softmax_op.cpp plugin.softmax)  # a built-in's short name

oflite_test(plugin oflite_cli_support)
# adding_an_op_doc_test.cpp reads docs/ADDING_AN_OP.md and the example it quotes.
target_compile_definitions(oflite_plugin_test PRIVATE OFLITE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
foreach(name good rival no_entry old_version null_version conflict shadow)
  string(TOUPPER ${name} upper)
  target_compile_definitions(oflite_plugin_test PRIVATE
    OFLITE_TEST_PLUGIN_${upper}="$<TARGET_FILE:oflite_test_plugin_${name}>")
  add_dependencies(oflite_plugin_test oflite_test_plugin_${name})
endforeach()

# `oflite --load` before any subcommand.
add_test(NAME plugin_cli_ops
  COMMAND oflite --load $<TARGET_FILE:oflite_test_plugin_good> ops)
set_tests_properties(plugin_cli_ops PROPERTIES PASS_REGULAR_EXPRESSION "plugin\\.scale")
add_test(NAME plugin_cli_optest COMMAND oflite --load $<TARGET_FILE:oflite_test_plugin_good>
  optest --op plugin.scale --device cpu)
# A plugin's softmax beside the built-in one: each proven under its own name in one process.
add_test(NAME plugin_cli_optest_shadow COMMAND oflite --load
  $<TARGET_FILE:oflite_test_plugin_shadow> optest --op plugin.softmax --op softmax --device cpu)
add_test(NAME plugin_cli_missing_library COMMAND oflite --load /nonexistent/libno_ops.so ops)
set_tests_properties(plugin_cli_missing_library PROPERTIES
  PASS_REGULAR_EXPRESSION "oflite: ValueError: LoadOpLibrary: cannot load /nonexistent/libno_ops.so: .*No such file")
