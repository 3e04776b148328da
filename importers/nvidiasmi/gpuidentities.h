#pragma once
// Which physical GPU each nvidia-smi row describes. A GPU index is only a position on one machine:
// when two jobs on two machines append to one shared file, "index 0" names two GPUs whose rows
// alternate. Rows are told apart by an identity text (uuid, else PCI bus id, else name); each
// identity of an index gets its own slot (its own tracks). A concurrent write can tear that text
// ("Te V100-PCIE-32GB"): a new identity is believed only after kConfirmRows rows, and one that
// never gets there but is a few edits from a believed one is that GPU's torn row.

#include "gpurecords.h"
#include "sourcebuilder.h"
#include "types.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace rs::nvidiasmi {

/// One data row as the CSV reader hands it on: its fields, line and sample time.
struct PendingRow {
    std::vector<std::string> fields;
    std::int64_t line = 0;
    TimeNs time = 0;
};

class GpuIdentities
{
public:
    /// Rows an identity needs before it counts as a GPU of its own.
    static constexpr std::int64_t kConfirmRows = 3;
    /// Called for each row once its slot is known: (gpu, slot, row).
    using Emit = std::function<void(int, int, const PendingRow &)>;

    explicit GpuIdentities(Emit emit) : m_emit(std::move(emit)) {}

    /// Places a row of GPU `gpu` whose identity text is `key` ("" when the file has none): emitted
    /// at once, or held while its identity is new.
    void row(int gpu, const std::string &key, PendingRow row);
    /// Settles the identities still held (torn rows join the nearest GPU, reported as torn-row),
    /// then reports every index with several GPUs as gpu-identity-conflict.
    void finish(SourceBuilder &out);

    /// The record of (gpu, slot), for the reader to fill name, memory and maxima into.
    GpuRecord &record(int gpu, int slot);
    /// Slots of `gpu` (1 unless several GPUs shared its index).
    int slots(int gpu) const;
    /// Every record, by GPU then slot.
    std::vector<GpuRecord> records() const;

private:
    struct Identity {
        std::string key;
        GpuRecord record;
    };
    struct Gpu {
        std::vector<Identity> confirmed;
        std::map<std::string, std::vector<PendingRow>> pending; // identity text → its first rows
    };
    static int slotOf(const Gpu &g, const std::string &key);

    Emit m_emit;
    std::map<int, Gpu> m_gpus;
};

} // namespace rs::nvidiasmi
