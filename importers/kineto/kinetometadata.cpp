#include "kinetometadata.h"

#include "plausible.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace rs {

namespace {

// FORMATS.md §1.2: without a base, ts above 1e15 µs is absolute epoch time.
constexpr TimeNs kEpochThresholdNs = 1'000'000'000'000'000'000;

// Number or numeric string, as Kineto writes both; these values are small and parsed once.
std::optional<std::int64_t> jsonInt(const nlohmann::json &obj, const char *key)
{
    const auto it = obj.find(key);
    if (it == obj.end())
        return std::nullopt;
    if (it->is_number_integer() || it->is_number_unsigned())
        return it->get<std::int64_t>();
    if (it->is_number_float() && std::fabs(it->get<double>()) < 9.2e18) // NaN fails the test too
        return static_cast<std::int64_t>(it->get<double>());
    if (it->is_string())
        return JsonRaw{it->get_ref<const std::string &>(), JsonRaw::Kind::String, false}.toInt();
    return std::nullopt;
}

} // namespace

KinetoMetadata::KinetoMetadata(SourceBuilder &out) : m_out(out) {}

std::size_t KinetoMetadata::valueCap(std::string_view key)
{
    return key == "deviceProperties" || key == "distributedInfo" ? 16u << 20 : kMetadataCap;
}

void KinetoMetadata::addTopLevel(const std::string &key, const std::string &value)
{
    if (key == "baseTimeNanoseconds") {
        std::string_view text = value;
        if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
            text = text.substr(1, text.size() - 2);
        const auto base = JsonRaw{text, JsonRaw::Kind::Token, false}.toInt();
        if (base && *base >= 0 && *base <= kMaxTime)
            m_baseNs = *base;
        else
            m_out.warning("base-time-unreadable", "baseTimeNanoseconds is not a usable number (" + value.substr(0, 40) + "); it was ignored");
    } else if (key == "deviceProperties") {
        parseDevices(value);
    } else if (key == "distributedInfo") {
        parseDistributedInfo(value);
    }
    m_out.source().metadata.emplace_back(key, value.substr(0, kMetadataCap));
}

void KinetoMetadata::addThreadMetadata(const JsonEvent &ev, std::int64_t pid, std::int64_t tid)
{
    if (ev.name.text == "thread_name") {
        if (const JsonRaw *name = ev.arg("name")) {
            std::string_view text = name->toText(m_scratch);
            while (!text.empty() && text.back() == ' ') // Kineto writes "stream 7 "
                text.remove_suffix(1);
            m_threadNames[{pid, tid}] = std::string(text);
        }
    } else if (ev.name.text == "thread_sort_index") {
        if (const JsonRaw *index = ev.arg("sort_index"))
            if (const auto v = index->toInt())
                m_threadSort[{pid, tid}] = JsonRaw::clampToInt32(*v);
    }
}

const std::string *KinetoMetadata::threadName(std::int64_t pid, std::int64_t tid) const
{
    const auto it = m_threadNames.find({pid, tid});
    return it != m_threadNames.end() && !it->second.empty() ? &it->second : nullptr;
}

std::optional<std::int32_t> KinetoMetadata::threadSortIndex(std::int64_t pid, std::int64_t tid) const
{
    const auto it = m_threadSort.find({pid, tid});
    return it != m_threadSort.end() ? std::optional<std::int32_t>(it->second) : std::nullopt;
}

void KinetoMetadata::parseDevices(const std::string &json)
{
    const auto doc = nlohmann::json::parse(json, nullptr, false);
    if (doc.is_discarded() || !doc.is_array()) {
        m_out.warning("device-properties-unreadable", "deviceProperties is not a readable JSON array; GPU details are missing");
        return;
    }
    for (const auto &d : doc) {
        if (!d.is_object())
            continue;
        DeviceInfo info;
        info.id = JsonRaw::clampToInt32(jsonInt(d, "id").value_or(static_cast<std::int64_t>(m_out.source().devices.size())));
        if (const auto it = d.find("name"); it != d.end() && it->is_string())
            info.name = it->get<std::string>();
        info.totalMemory = jsonInt(d, "totalGlobalMem").value_or(0);
        info.computeMajor = JsonRaw::clampToInt32(jsonInt(d, "computeMajor").value_or(0));
        info.computeMinor = JsonRaw::clampToInt32(jsonInt(d, "computeMinor").value_or(0));
        info.numSms = JsonRaw::clampToInt32(jsonInt(d, "numSms").value_or(0));
        m_out.addDevice(info);
    }
}

void KinetoMetadata::parseDistributedInfo(const std::string &json)
{
    const auto doc = nlohmann::json::parse(json, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        m_out.warning("distributed-info-unreadable", "distributedInfo is not a readable JSON object; the rank is taken from elsewhere");
        return;
    }
    // A rank or world size no job has (negative, 2^40, a string, rank 7 of 2) is reported and not
    // used: the rank then comes from the file name or the user, never from a wrapped number.
    const auto rank = jsonInt(doc, "rank");
    const auto world = jsonInt(doc, "world_size");
    if (doc.contains("rank") && (!rank || !plausible::rank(*rank)))
        m_out.warning("rank-implausible", "distributedInfo.rank is " + doc["rank"].dump().substr(0, 40)
                                              + ": not a rank (0 to 2^20); the rank is taken from elsewhere");
    else if (rank)
        m_rank = static_cast<RankId>(*rank);
    if (doc.contains("world_size") && (!world || *world < 1 || *world > plausible::kMaxRank)) {
        m_out.warning("world-size-implausible", "distributedInfo.world_size is " + doc["world_size"].dump().substr(0, 40)
                                                    + ": not a world size (1 to 2^20); ignored");
    } else if (world) {
        m_worldSize = static_cast<std::int32_t>(*world);
        if (m_rank && *m_rank >= m_worldSize) {
            m_out.warning("rank-outside-world", "distributedInfo.rank " + std::to_string(*m_rank) + " is not below its world_size "
                                                    + std::to_string(m_worldSize) + "; the world size is ignored");
            m_worldSize = 0;
        }
    }
}

void KinetoMetadata::applyClock(std::optional<TimeNs> firstTime)
{
    const bool absolute = firstTime && *firstTime > kEpochThresholdNs;
    if (m_baseNs && absolute)
        m_out.warning("base-time-ignored", "baseTimeNanoseconds was ignored: the timestamps are already absolute epoch times");
    else if (m_baseNs)
        m_out.shiftTimes(*m_baseNs);
    m_out.source().hasClock = m_baseNs.has_value() || absolute;
}

void KinetoMetadata::applyRanks(std::optional<RankId> commsRank, std::int32_t commsGroupSize)
{
    Source &src = m_out.source();
    if (m_rank)
        src.ranks = {*m_rank};
    else if (commsRank)
        src.ranks = {*commsRank};
    src.worldSize = m_worldSize > 0 || m_rank ? m_worldSize : commsGroupSize;
}

} // namespace rs
