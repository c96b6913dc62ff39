// The keys of the scan's JSON document that its readers need (detect/scan_labels.hpp, scan_merge.hpp), spelled
// once for the writer (scan_json.hpp) and every reader. Only the names: a reader includes this
// without the scan itself.
#pragma once

namespace qkov::scan {

/// The keys a reader of the document needs (detect/scan_labels.hpp, scan_merge.hpp), spelled once.
namespace scan_json_keys {
inline constexpr const char* schema = "schema";
inline constexpr const char* model = "model";
inline constexpr const char* heads = "heads";
inline constexpr const char* layer = "layer";
inline constexpr const char* head = "head";
inline constexpr const char* labels = "labels";
inline constexpr const char* certified = "certified";
inline constexpr const char* mean_field = "mean_field";
inline constexpr const char* by_offset = "attention_by_offset";
inline constexpr const char* bos = "bos";
inline constexpr const char* previous_token = "previous_token";
inline constexpr const char* token_copying = "token_copying";
inline constexpr const char* top1_share = "top1_share";
inline constexpr const char* bottom10_share = "bottom10_share";
// What a merge of shards (scan_merge.hpp) reads and writes.
inline constexpr const char* model_layers = "layers";  ///< in `model`: the model's layer count
inline constexpr const char* model_fingerprint = "model_fingerprint";  ///< which model: model/weight_fingerprint.hpp
inline constexpr const char* model_heads = "heads";    ///< in `model`: the model's heads per layer
inline constexpr const char* model_path = "path";      ///< in `model`
inline constexpr const char* model_head_dim = "head_dim";  ///< in `model`: the head dimension d
inline constexpr const char* scanned_layers = "scanned_layers";
inline constexpr const char* conventions = "conventions";
inline constexpr const char* thresholds = "thresholds";
inline constexpr const char* proxy = "proxy";
/// The input the labels predict behaviour on: input_random_tokens, input_own_text, input_file + the
/// path, or input_given (sequences handed over in Python). A detection names its sequences with the
/// same words (detect/detection_result.hpp), so the two can be paired (detect/input_pairing.hpp).
inline constexpr const char* input = "input";
inline constexpr const char* input_random_tokens = "random tokens";
inline constexpr const char* input_own_text = "own text";
inline constexpr const char* input_file = "file ";
inline constexpr const char* input_given = "given sequences";
inline constexpr const char* composition = "composition";
// In `composition`: the companion file of the pairs' tensors (composition_tensors.hpp).
inline constexpr const char* tensors_file = "tensors";  ///< its name, beside the document
inline constexpr const char* tensors_sha256 = "sha256";  ///< the SHA-256 of its bytes
inline constexpr const char* pair_count = "pairs";       ///< the pairs it holds
inline constexpr const char* largest_bound = "largest_bound";  ///< every score within this of the float64 scan's
inline constexpr const char* recomputed_in_float64 = "recomputed_in_float64";  ///< pairs recomputed in float64 for the circuits
inline constexpr const char* source = "source";
inline constexpr const char* target = "target";
inline constexpr const char* q_composition = "q";  ///< a pair's scores, and a source's strongest targets under each
inline constexpr const char* k_composition = "k";
inline constexpr const char* v_composition = "v";
inline constexpr const char* facts = "facts";
inline constexpr const char* claim = "claim";
inline constexpr const char* statement = "statement";
inline constexpr const char* passed = "passed";
inline constexpr const char* detail = "detail";
inline constexpr const char* strongest_edges = "strongest_edges";
inline constexpr const char* circuits = "circuits";
inline constexpr const char* cond_q = "cond_q";
inline constexpr const char* cond_k = "cond_k";
inline constexpr const char* reconstruction_residual = "reconstruction_residual";
inline constexpr const char* qk = "qk";
inline constexpr const char* ov_identity_distance = "ov_identity_distance";
inline constexpr const char* ov_identity_floor = "ov_identity_floor";
inline constexpr const char* absorbed_form_gap = "absorbed_form_gap";
} // namespace scan_json_keys

} // namespace qkov::scan
