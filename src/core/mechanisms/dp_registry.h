/*
 * dp_registry.h
 *		The registry of counting mechanisms: the kinds of dp_mechanism_list.h,
 *		looked up by stored id or by name, and the checks of a mechanism value
 *		against its kind (dp_mechanism_validate, declared in dp_mechanism.h).
 *
 * The registry sits above the kinds (it lists them) and below everything
 * that runs or describes one: the counter, the codecs, planning.
 */
#ifndef DP_REGISTRY_H
#define DP_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp_counter_kind.h"

extern const dp_counter_kind *dp_counter_kind_by_id(int32_t kind);
/*
 * Gives an absent real parameter (shape 0) the kind's default, for a kind
 * that has one (dp_counter_kind.default_shape); otherwise does nothing.
 */
extern void dp_mechanism_fill_default_shape(dp_mechanism *mechanism);
extern const dp_counter_kind *dp_counter_kind_by_name(const char *name);
/*
 * The kinds that accept every option in `flags` (DP_FLAG_*), in registry
 * order: fills names with up to `size` kind names and returns how many kinds
 * there are.  Messages that list the kinds supporting an option ask this,
 * so a new kind, or a kind that gains an option, is listed at once.
 */
extern size_t dp_counter_kinds_accepting(uint32_t flags, const char **names, size_t size);
extern const dp_counter_kind *dp_counter_kind_at(size_t index);
/*
 * dp_auto's choice: the kind of lowest auto_rank (dp_counter_kind.h) that
 * is bounded or not as asked and accepts every option in `flags`; NULL when
 * no ranked kind does.
 */
extern const dp_counter_kind *dp_counter_kind_auto(bool bounded, uint32_t flags);

#endif							/* DP_REGISTRY_H */
