// The RoPE precision audit: how far the cos/sin tables, angles and q.k scores of real RoPE code
// (float32, bf16, fp16 recipes, a user's table or rotated vectors) fall from the 100-digit reference rotation,
// by position bucket 10^0 .. 10^7, and where seed 001's previous-token head stops putting its
// largest score on the previous token.
//
// Everything goes through the library's own RoPE: rope_rotation and numeric_angles with
// standard_theta for the reference (cpp_bin_float_100), previous_token_head for the head,
// rope_rotation<X, L> over emulated bf16/fp16 (scalar/narrow_float.hpp) or float for the
// implementations, whose angle providers are in practice_angles.hpp and table_angles.hpp.
// The layout (d, rotary_dim, pairing) is a template argument of the library's RoPE, so the
// audit is compiled for a fixed list of layouts (supported_audit_layouts) and picked at run time.
//
// One header per part: rope_audit_settings.hpp (what the audit is asked, and the check of it),
// rope_audit_report.hpp (what it hands back), rope_audit_positions.hpp (the sampled positions),
// rope_audit_estimate.hpp (its size before it runs), rope_audit_measure.hpp (one implementation
// against the reference), rope_audit_run.hpp (one layout), rope_audit_dispatch.hpp (audit_rope).
#pragma once

#include "qkov/precision/rope_audit_dispatch.hpp"
#include "qkov/precision/rope_audit_estimate.hpp"
#include "qkov/precision/rope_audit_measure.hpp"
#include "qkov/precision/rope_audit_positions.hpp"
#include "qkov/precision/rope_audit_report.hpp"
#include "qkov/precision/rope_audit_run.hpp"
#include "qkov/precision/rope_audit_settings.hpp"
