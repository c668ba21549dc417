"""The argument schema (uattn_gen/args.py) is emitted once, into every view of a call's arguments:
the C struct (args.h), the C++ lists (args.hpp) the hand-written AttentionArgs, ProblemArgs,
AttnParams and their converters expand, and the feature bits of vocab.hpp."""
import dataclasses
import re

import pytest

import gen_helpers  # noqa: F401  (puts the generator on sys.path)
from uattn_gen import args as schema
from uattn_gen import emit
from uattn_gen.args import ARGS, FEATURES, PARAMS, Arg, Feature, Param

GEN = "include/uattn/generated"


def _macro(text: str, name: str) -> list[str]:
    """The X(...) entries of `#define name(X)` in text, in order, comments dropped."""
    m = re.search(rf"#define {name}\(X\) \\\n(.*?)(?:\n\n|\Z)", text, re.S)
    assert m, f"{name} is not defined"
    body = re.sub(r"/\*.*?\*/", "", m.group(1)).replace("\\\n", "\n")
    return [e.strip() for e in body.splitlines() if e.strip()]


def _c_fields(text: str) -> list[tuple[str, str]]:
    """(type, name) of every field of uattn_args_t in args.h, in order."""
    body = text[text.index("typedef struct uattn_args {"):text.index("} uattn_args_t;")]
    return re.findall(r"^  (.+?) (\w+);", body, re.M)


def test_every_argument_in_every_view(run, tmp_path):
    out = tmp_path / "out"
    rc, _, err = run("generate", "--out", out, "--matrix", gen_helpers.DEFAULT_YAML)
    assert rc == 0, err
    c = (out / GEN / "args.h").read_text()
    cpp = (out / GEN / "args.hpp").read_text()
    # The C struct: every argument, in schema order, with its C type (the ABI of uattn.h).
    assert _c_fields(c) == [(a.c_type, a.name) for a in ARGS]
    assert ("const float*", "alibi_slopes") in _c_fields(c)
    assert re.search(r"  int32_t window_left; +/\* -1 = no sliding window.*; uattn_args_init: -1 \*/", c)
    # AttentionArgs / the C -> C++ converter / uattn_args_init.
    assert _macro(cpp, "UATTN_FOREACH_ARG") == [
        f"X({a.c_type}, {a.cpp_type}, {a.name}, {a.cpp_default})" for a in ARGS]
    assert "X(uattn_tensor_t, TensorDesc, q, {})" in _macro(cpp, "UATTN_FOREACH_ARG")
    assert "X(int32_t, int, window_left, -1)" in _macro(cpp, "UATTN_FOREACH_ARG")
    # validate(): the scalars with a rule, in order.
    assert _macro(cpp, "UATTN_FOREACH_SCALAR_CHECK") == [
        "X(softmax_scale, positive)", "X(window_left, window)", "X(softcap, off_or_positive)",
        "X(k_scale, kv_scale)", "X(v_scale, kv_scale)", "X(output_scale, out_scale)"]
    # ProblemArgs and features_used(): one switch per feature argument.
    assert _macro(cpp, "UATTN_FOREACH_FEATURE_ARG") == [
        "X(int, window_left, window_left, -1, scalar, kFeatWindow, (v >= 0))",
        "X(float, softcap, softcap, 0, scalar, kFeatSoftcap, (v != 0))",
        "X(bool, alibi, alibi_slopes, false, optional, kFeatAlibi, (v))",
        "X(bool, qq_bias, qq_bias, false, optional, kFeatQQBias, (v))",
        "X(bool, sinks, sinks, false, optional, kFeatSinks, (v))"]
    # AttnParams: the kernel layout, and what make_params copies.
    assert _macro(cpp, "UATTN_FOREACH_PARAM") == [f"X({p.type}, {p.name})" for p in PARAMS]
    assert len(PARAMS) == 47 and PARAMS[0].name == "q" and PARAMS[-1].name == "ws_count"
    copies = _macro(cpp, "UATTN_FOREACH_PARAM_COPY")
    assert "X(sinks)" in copies and "X(softcap)" in copies and "X(q)" not in copies
    assert _macro(cpp, "UATTN_FOREACH_PARAM_GATED") == ["X(qq_bias_stride, qq_bias)"]
    # The feature bits carry the arguments that switch them on.
    vocab = (out / GEN / "vocab.hpp").read_text()
    assert "kFeatWindow = 0x01u,  // window: window_left >= 0" in vocab
    assert "kFeatSinks = 0x10u,  // sinks: sinks != nullptr" in vocab


def test_a_new_feature_is_one_schema_entry(monkeypatch):
    """A score modifier with a per-head tensor and a scalar, declared in the schema only,
    reaches the C struct (appended: the ABI grows at its end), AttentionArgs, ProblemArgs,
    the feature bits and AttnParams."""
    feat = Feature("temperature", "temp", 0x20, "kFeatTemperature")
    new_args = (Arg("head_temperature", "const float*", schema.OPTIONAL, "[Hq] fp32 or NULL",
                    feature="temperature"),
                Arg("temperature_floor", "float", schema.SCALAR, "lower bound", default="1.0f",
                    check="positive", gated_by="head_temperature"))
    args = ARGS + new_args
    monkeypatch.setattr(schema, "FEATURES", FEATURES + (feat,))
    monkeypatch.setattr(schema, "ARGS", args)
    monkeypatch.setattr(schema, "ARG", {a.name: a for a in args})
    params = PARAMS + (Param("head_temperature", "const float*", "[Hq] or null", schema.FROM_ARG),
                       Param("temperature_floor", "float", "", schema.FROM_ARG))
    monkeypatch.setattr(schema, "PARAMS", params)
    schema.check_schema()
    files = emit.render_args()
    c, cpp = files[f"{GEN}/args.h"], files[f"{GEN}/args.hpp"]
    assert _c_fields(c)[-2:] == [("const float*", "head_temperature"), ("float", "temperature_floor")]
    assert _c_fields(c)[:-2] == [(a.c_type, a.name) for a in ARGS]
    assert _macro(cpp, "UATTN_FOREACH_ARG")[-1] == "X(float, float, temperature_floor, 1.0f)"
    assert _macro(cpp, "UATTN_FOREACH_SCALAR_CHECK")[-1] == "X(temperature_floor, positive)"
    assert _macro(cpp, "UATTN_FOREACH_FEATURE_ARG")[-1] == (
        "X(bool, temperature, head_temperature, false, optional, kFeatTemperature, (v))")
    assert _macro(cpp, "UATTN_FOREACH_PARAM")[-2:] == ["X(const float*, head_temperature)",
                                                      "X(float, temperature_floor)"]
    assert "X(head_temperature)" in _macro(cpp, "UATTN_FOREACH_PARAM_COPY")
    assert _macro(cpp, "UATTN_FOREACH_PARAM_GATED")[-1] == "X(temperature_floor, head_temperature)"
    assert feat.used_when == "head_temperature != nullptr"


@pytest.mark.parametrize("change, message", [
    (lambda a: a + (dataclasses.replace(a[0]),), "duplicate argument names"),
    (lambda a: a + (Arg("x", "float", "blob", ""),), "x: role 'blob'"),
    (lambda a: a + (Arg("x", "float", schema.SCALAR, "", check="odd"),), "x: check 'odd'"),
    (lambda a: a + (Arg("x", "const float*", schema.OPTIONAL, "", feature="nope"),), "x: feature 'nope'"),
    (lambda a: a + (Arg("x", "float", schema.SCALAR, "", feature="window"),), "x: a scalar feature switch"),
    (lambda a: a + (Arg("x", "int32_t", schema.SCALAR, "", gated_by="softcap"),), "x: gated_by 'softcap'"),
    (lambda a: a + (Arg("x", "const float*", schema.OPTIONAL, "", feature="window"),),
     "optional tensor x has no kernel parameter"),
    (lambda a: tuple(x for x in a if x.feature != "sinks"), "feature 'sinks' has no argument"),
])
def test_inconsistent_schema_is_refused(monkeypatch, change, message):
    args = change(ARGS)
    monkeypatch.setattr(schema, "ARGS", args)
    monkeypatch.setattr(schema, "ARG", {a.name: a for a in args})
    with pytest.raises(ValueError, match=re.escape(message)):
        schema.check_schema()
