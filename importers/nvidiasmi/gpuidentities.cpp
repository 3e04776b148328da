#include "gpuidentities.h"

#include "nvidiasmiparser.h"

#include <algorithm>
#include <cmath>

namespace rs::nvidiasmi {

namespace {

std::string mib(std::int64_t bytes)
{
    return std::to_string(std::llround(double(bytes) / (1024.0 * 1024.0))) + " MiB";
}

std::string describe(const GpuRecord &r, const std::string &key)
{
    std::string s = "'" + (r.name.empty() ? key : r.name) + "' " + std::to_string(r.rows) + " rows";
    if (r.tornRows > 0)
        s += " (" + std::to_string(r.tornRows) + " torn)";
    if (r.maxUsed >= 0) {
        s += ", max memory.used " + mib(r.maxUsed);
        std::string at;
        if (r.freeAtMax >= 0)
            at = mib(r.freeAtMax) + " free";
        if (r.utilAtMax >= 0)
            at += (at.empty() ? "" : ", ") + std::to_string(std::lround(r.utilAtMax)) + " % utilization";
        if (!at.empty())
            s += " (" + at + ")";
    }
    return s;
}

} // namespace

int GpuIdentities::slotOf(const Gpu &g, const std::string &key)
{
    for (std::size_t i = 0; i < g.confirmed.size(); ++i)
        if (g.confirmed[i].key == key)
            return int(i);
    return -1;
}

void GpuIdentities::row(int gpu, const std::string &key, PendingRow r)
{
    Gpu &g = m_gpus[gpu];
    int slot = slotOf(g, key);
    if (slot < 0 && g.confirmed.empty()) {
        // The first identity of an index needs no confirmation: most files have only it.
        g.confirmed.push_back({key, GpuRecord()});
        slot = 0;
    }
    if (slot >= 0) {
        ++g.confirmed[std::size_t(slot)].record.rows;
        m_emit(gpu, slot, r);
        return;
    }
    auto &held = g.pending[key];
    held.push_back(std::move(r));
    if (std::int64_t(held.size()) < kConfirmRows)
        return;
    g.confirmed.push_back({key, GpuRecord()});
    slot = int(g.confirmed.size() - 1);
    std::vector<PendingRow> rows = std::move(held);
    g.pending.erase(key);
    for (const PendingRow &p : rows) {
        ++g.confirmed[std::size_t(slot)].record.rows;
        m_emit(gpu, slot, p);
    }
}

void GpuIdentities::finish(SourceBuilder &out)
{
    for (auto &[gpu, g] : m_gpus) {
        auto pending = std::move(g.pending);
        g.pending.clear();
        for (auto &[key, rows] : pending) {
            // A torn copy is a few edits from the text it was torn from; another GPU model differs
            // in a handful of characters too, but would not stop after one or two rows.
            int nearest = -1;
            std::size_t best = 0;
            for (std::size_t i = 0; i < g.confirmed.size(); ++i) {
                const std::string &k = g.confirmed[i].key;
                const std::size_t limit = std::max<std::size_t>(2, std::max(k.size(), key.size()) / 4);
                const std::size_t d = editDistance(key, k, limit);
                if (d <= limit && (nearest < 0 || d < best)) {
                    nearest = int(i);
                    best = d;
                }
            }
            int slot = nearest;
            if (slot < 0) {
                g.confirmed.push_back({key, GpuRecord()});
                slot = int(g.confirmed.size() - 1);
            }
            Identity &id = g.confirmed[std::size_t(slot)];
            for (const PendingRow &p : rows) {
                if (nearest >= 0) {
                    out.warning("torn-row",
                                "GPU " + std::to_string(gpu) + " is named '" + key + "', a torn copy of '" + id.key
                                    + "' (two writers interleaved in the file); the row is counted under that GPU",
                                p.line);
                    ++id.record.tornRows;
                }
                ++id.record.rows;
                m_emit(gpu, slot, p);
            }
        }
        if (g.confirmed.size() < 2)
            continue;
        std::string list;
        for (const Identity &id : g.confirmed)
            list += (list.empty() ? "" : "; ") + describe(id.record, id.key);
        out.warning("gpu-identity-conflict",
                    "GPU index " + std::to_string(gpu) + " names " + std::to_string(g.confirmed.size())
                        + " different GPUs (several machines or jobs wrote into one file; each keeps its own tracks): " + list,
                    g.confirmed[1].record.line);
    }
}

GpuRecord &GpuIdentities::record(int gpu, int slot)
{
    return m_gpus[gpu].confirmed.at(std::size_t(slot)).record;
}

int GpuIdentities::slots(int gpu) const
{
    const auto it = m_gpus.find(gpu);
    return it == m_gpus.end() ? 0 : int(it->second.confirmed.size());
}

std::vector<GpuRecord> GpuIdentities::records() const
{
    std::vector<GpuRecord> out;
    for (const auto &[gpu, g] : m_gpus)
        for (const Identity &id : g.confirmed) {
            GpuRecord r = id.record;
            r.index = gpu;
            r.rank = gpu;
            out.push_back(std::move(r));
        }
    return out;
}

} // namespace rs::nvidiasmi
