#pragma once
// The opcode interpreter behind RestrictedUnpickler: runs a pickle's data opcodes from a
// PickleInput against the limits (values, string size, stack, memo, nesting, a memory budget
// counted as values are made) and builds the value tree. Nothing else includes this.

#include "pickleinput.h"
#include "restrictedunpickler.h"

namespace rs {

/// Decodes the pickle `in` holds; nullptr with `error` set when it fails.
PickleRef decodePickle(PickleInput &in, const RestrictedUnpickler::Limits &limits, RestrictedUnpickler::Error &error);
/// The same, but a pickle that ends early yields what was read (RestrictedUnpickler::loadPartial).
PickleRef decodePicklePartial(PickleInput &in, const RestrictedUnpickler::Limits &limits, RestrictedUnpickler::Error &error);

} // namespace rs
