# uattn-bench-cpu --model (model_bench.hpp): the emulator's traces through tools/model, beside
# Triton's code objects (tests/isa/triton_launch.hpp) and the seed's measured Triton times.
target_sources(uattn-bench-cpu PRIVATE ${CMAKE_CURRENT_LIST_DIR}/model_bench.cpp)
target_link_libraries(uattn-bench-cpu PRIVATE uattn_model uattn_triton_launch uattn_exec)
target_compile_definitions(uattn-bench-cpu PRIVATE UATTN_TRITON_DIR="${UATTN_TRITON_DIR}"
                           UATTN_SEED_TRITON_TIMES="${CMAKE_CURRENT_LIST_DIR}/seed_triton_mi355x.json")
# The modelled tables of the default set (scaled: the divisor is in the 'scale' column) and the
# report's schema, model fields included (check_report.py --model). gfx1030 samples the heads
# (--model-kv-heads 1: one of each launch's KV heads run and traced, the rest modelled as alike).
foreach(_arch gfx950 gfx1030)
  set(_report "${CMAKE_BINARY_DIR}/bench_model.${_arch}.json")
  set(_sampling)
  if(_arch STREQUAL "gfx1030")
    set(_sampling --model-kv-heads 1)
  endif()
  add_test(NAME bench.model.default.${_arch}
           COMMAND uattn-bench-cpu --model --set default --arch ${_arch} --scale-budget 300 ${_sampling}
                   --report "${_report}")
  set_tests_properties(bench.model.default.${_arch} PROPERTIES LABELS "e2e;model" TIMEOUT 1800
                       ENVIRONMENT "UATTN_HIPCPU_DEVICES=gfx950:sramecc+:xnack-,gfx1030")
  add_test(NAME bench.model.report_schema.${_arch}
           COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_LIST_DIR}/check_report.py" "${_report}"
                   --set default --arch ${_arch} --backend cpu --model)
  set_tests_properties(bench.model.report_schema.${_arch} PROPERTIES LABELS "e2e;model"
                       DEPENDS bench.model.default.${_arch})
endforeach()
# --model-candidates on two scenarios at full size (heads sampled): every configuration the selector
# can pick runs, matches the reference and is modelled; the report's agreement fields are checked.
set(_report "${CMAKE_BINARY_DIR}/bench_model_candidates.gfx950.json")
add_test(NAME bench.model.candidates.gfx950
         COMMAND uattn-bench-cpu --model --model-candidates --set default --arch gfx950 --scale-budget 0
                 --model-kv-heads 1 --paths auto --scenario decode_d128_b16 --scenario prefill_d128_b16
                 --report "${_report}")
set_tests_properties(bench.model.candidates.gfx950 PROPERTIES LABELS "e2e;model" TIMEOUT 1800
                     ENVIRONMENT "UATTN_HIPCPU_DEVICES=gfx950:sramecc+:xnack-,gfx1030")
add_test(NAME bench.model.candidates_schema.gfx950
         COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_LIST_DIR}/check_report.py" "${_report}"
                 --arch gfx950 --backend cpu --model --candidates)
set_tests_properties(bench.model.candidates_schema.gfx950 PROPERTIES LABELS "e2e;model"
                     DEPENDS bench.model.candidates.gfx950)
