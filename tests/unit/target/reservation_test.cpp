// The test target's reservation engine (tests/target/reservation.*)
// against the NVMe Base Specification 2.0 (§8.19) and the NVM Command
// Set's Reservation commands: the expectations below are the
// specification's tables and rules written out, not rblk's behaviour.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <tuple>
#include <vector>

#include "reservation.hpp"

namespace {

using rt::resv::Access;
using rt::resv::Engine;
using rt::resv::HostId;
using rt::resv::Notice;
using rt::resv::NoticeLog;
using rt::resv::Notify;
using rt::resv::Outcome;
using rt::resv::Type;
using rt::resv::kStatusConflict;
using rt::resv::kStatusHostIdInconsistent;
using rt::resv::kStatusInvalidField;
using rt::resv::kStatusSuccess;

HostId host(uint8_t n)
{
    HostId h{};
    for (size_t i = 0; i < h.size(); i++)
        h[i] = uint8_t(n * 16 + i);
    return h;
}

const HostId A = host(1), B = host(2), C = host(3), D = host(4);

std::array<uint8_t, 16> keys(uint64_t first, uint64_t second = 0)
{
    std::array<uint8_t, 16> d{};
    std::memcpy(d.data(), &first, 8);
    std::memcpy(d.data() + 8, &second, 8);
    return d;
}

// The first @n bytes: data shorter than the command needs.
std::vector<uint8_t> cut(const std::array<uint8_t, 16>& d, size_t n)
{
    return {d.begin(), d.begin() + n};
}

// CDW10 of Register: RREGA 2:0, IEKEY 3, CPTPL 31:30.
uint32_t rrega(unsigned act, bool ie = false, unsigned cptpl = 0)
{
    return act | (ie ? 1u << 3 : 0) | cptpl << 30;
}
// CDW10 of Acquire / Release: action 2:0, IEKEY 3, RTYPE 15:8.
uint32_t act(unsigned a, Type t, bool ie = false)
{
    return a | (ie ? 1u << 3 : 0) | unsigned(t) << 8;
}

constexpr unsigned kRegister = 0, kUnregister = 1, kReplace = 2;
constexpr unsigned kAcquire = 0, kPreempt = 1, kPreemptAbort = 2;
constexpr unsigned kRelease = 0, kClear = 1;

constexpr Type kTypes[] = {Type::write_exclusive,          Type::exclusive_access,
                           Type::write_exclusive_reg_only, Type::exclusive_access_reg_only,
                           Type::write_exclusive_all_regs, Type::exclusive_access_all_regs};

class Resv : public ::testing::Test {
protected:
    Engine e{Engine::Config{.ptpl_capable = true, .hostid_128 = true}};

    Outcome reg(const HostId& h, uint64_t nrkey) { return e.reg(h, rrega(kRegister), keys(0, nrkey)); }
    Outcome unreg(const HostId& h, uint64_t crkey) { return e.reg(h, rrega(kUnregister), keys(crkey)); }
    Outcome acquire(const HostId& h, uint64_t crkey, Type t) { return e.acquire(h, act(kAcquire, t), keys(crkey)); }
    Outcome preempt(const HostId& h, uint64_t crkey, uint64_t prkey, Type t, bool abort = false)
    {
        return e.acquire(h, act(abort ? kPreemptAbort : kPreempt, t), keys(crkey, prkey));
    }
    Outcome release(const HostId& h, uint64_t crkey, Type t) { return e.release(h, act(kRelease, t), keys(crkey)); }
    Outcome clear(const HostId& h, uint64_t crkey) { return e.release(h, act(kClear, Type::none), keys(crkey)); }

    void ok(const Outcome& o) { ASSERT_EQ(o.status, kStatusSuccess); }
};

// --- The access table ----------------------------------------------------

// "Command Behavior in the Presence of a Reservation": per type, may the
// holder / a registrant (not holding) / a non-registrant read and write.
struct Row {
    Type type;
    bool holder_r, holder_w, reg_r, reg_w, other_r, other_w;
};

constexpr Row kAccessTable[] = {
    {Type::write_exclusive, true, true, true, false, true, false},
    {Type::exclusive_access, true, true, false, false, false, false},
    {Type::write_exclusive_reg_only, true, true, true, true, true, false},
    {Type::exclusive_access_reg_only, true, true, true, true, false, false},
    {Type::write_exclusive_all_regs, true, true, true, true, true, false},
    {Type::exclusive_access_all_regs, true, true, true, true, false, false},
};

class AccessTable : public Resv, public ::testing::WithParamInterface<Row> {};

TEST_P(AccessTable, HolderRegistrantAndOthers)
{
    const Row row = GetParam();
    ok(reg(A, 0xa));
    ok(reg(B, 0xb));
    ok(acquire(A, 0xa, row.type));
    EXPECT_EQ(e.type(), row.type);
    EXPECT_EQ(e.allows(A, Access::read), row.holder_r);
    EXPECT_EQ(e.allows(A, Access::write), row.holder_w);
    EXPECT_EQ(e.allows(B, Access::read), row.reg_r);
    EXPECT_EQ(e.allows(B, Access::write), row.reg_w);
    EXPECT_EQ(e.allows(C, Access::read), row.other_r);
    EXPECT_EQ(e.allows(C, Access::write), row.other_w);
    // Holder definition: all registrants for types 5 and 6, else one.
    EXPECT_EQ(e.holds(B), rt::resv::all_registrants(row.type));
    EXPECT_FALSE(e.holds(C));
}

INSTANTIATE_TEST_SUITE_P(SixTypes, AccessTable, ::testing::ValuesIn(kAccessTable),
                         [](const auto& info) { return "Type" + std::to_string(unsigned(info.param.type)); });

TEST_F(Resv, NoReservationAllowsEveryone)
{
    ok(reg(A, 1));
    for (const auto& h : {A, B})
        for (const auto g : {Access::read, Access::write})
            EXPECT_TRUE(e.allows(h, g));
}

TEST_F(Resv, UnregisteredHostLosesRegistrantAccess)
{
    ok(reg(A, 1));
    ok(reg(B, 2));
    ok(acquire(A, 1, Type::exclusive_access_reg_only));
    EXPECT_TRUE(e.allows(B, Access::write));
    ok(unreg(B, 2));
    EXPECT_FALSE(e.allows(B, Access::read));
    EXPECT_FALSE(e.allows(B, Access::write));
}

// --- Register ----------------------------------------------------------

TEST_F(Resv, RegisterNewHostAndRepeatSameKey)
{
    ok(reg(A, 0x1111));
    EXPECT_EQ(e.key(A), 0x1111u);
    EXPECT_EQ(e.generation(), 1u);
    ok(reg(A, 0x1111));  // the same key again: success, counts
    EXPECT_EQ(e.generation(), 2u);
    EXPECT_EQ(e.registrants(), 1u);
}

TEST_F(Resv, RegisterOtherKeyWhileRegisteredConflicts)
{
    ok(reg(A, 1));
    EXPECT_EQ(reg(A, 2).status, kStatusConflict);
    // IEKEY does not apply to Register: still a conflict.
    EXPECT_EQ(e.reg(A, rrega(kRegister, true), keys(0, 2)).status, kStatusConflict);
    EXPECT_EQ(e.key(A), 1u);
    EXPECT_EQ(e.generation(), 1u);
}

TEST_F(Resv, RegisterIgnoresCrkey)
{
    ok(e.reg(A, rrega(kRegister), keys(0xdead, 7)));
    EXPECT_EQ(e.key(A), 7u);
}

TEST_F(Resv, UnregisterChecksCrkeyUnlessIekey)
{
    ok(reg(A, 5));
    EXPECT_EQ(unreg(A, 6).status, kStatusConflict);
    EXPECT_TRUE(e.registered(A));
    ok(e.reg(A, rrega(kUnregister, true), keys(6)));
    EXPECT_FALSE(e.registered(A));
    EXPECT_EQ(e.generation(), 2u);
}

TEST_F(Resv, UnregisterOrReplaceByNonRegistrantConflicts)
{
    EXPECT_EQ(unreg(A, 0).status, kStatusConflict);
    EXPECT_EQ(e.reg(A, rrega(kUnregister, true), keys(0)).status, kStatusConflict);
    EXPECT_EQ(e.reg(A, rrega(kReplace), keys(0, 9)).status, kStatusConflict);
    EXPECT_EQ(e.reg(A, rrega(kReplace, true), keys(0, 9)).status, kStatusConflict);
    EXPECT_EQ(e.generation(), 0u);
}

TEST_F(Resv, ReplaceChecksCrkeyUnlessIekey)
{
    ok(reg(A, 1));
    EXPECT_EQ(e.reg(A, rrega(kReplace), keys(2, 3)).status, kStatusConflict);
    EXPECT_EQ(e.key(A), 1u);
    ok(e.reg(A, rrega(kReplace), keys(1, 3)));
    EXPECT_EQ(e.key(A), 3u);
    ok(e.reg(A, rrega(kReplace, true), keys(99, 4)));
    EXPECT_EQ(e.key(A), 4u);
    EXPECT_EQ(e.generation(), 3u);
}

TEST_F(Resv, ReplaceKeepsTheReservation)
{
    ok(reg(A, 1));
    ok(acquire(A, 1, Type::write_exclusive));
    ok(e.reg(A, rrega(kReplace), keys(1, 2)));
    EXPECT_TRUE(e.holds(A));
    EXPECT_EQ(e.type(), Type::write_exclusive);
    ok(release(A, 2, Type::write_exclusive));
}

TEST_F(Resv, RegisterInvalidFields)
{
    for (unsigned a = 3; a < 8; a++)
        EXPECT_EQ(e.reg(A, rrega(a), keys(0, 1)).status, kStatusInvalidField) << a;
    EXPECT_EQ(e.reg(A, rrega(kRegister, false, 1), keys(0, 1)).status, kStatusInvalidField);  // CPTPL 01b reserved
    EXPECT_EQ(e.reg(A, rrega(kRegister), cut(keys(0, 1), 15)).status, kStatusInvalidField);
    EXPECT_FALSE(e.registered(A));
    EXPECT_EQ(e.generation(), 0u);
}

TEST_F(Resv, CptplSetsAndClearsPtpl)
{
    ok(e.reg(A, rrega(kRegister, false, 3), keys(0, 1)));
    EXPECT_TRUE(e.ptpl());
    ok(e.reg(A, rrega(kRegister, false, 0), keys(0, 1)));  // 00b: no change
    EXPECT_TRUE(e.ptpl());
    ok(e.reg(A, rrega(kReplace, false, 2), keys(1, 2)));
    EXPECT_FALSE(e.ptpl());
    // A failed command changes nothing, PTPL included.
    EXPECT_EQ(e.reg(B, rrega(kUnregister, false, 3), keys(0)).status, kStatusConflict);
    EXPECT_FALSE(e.ptpl());
}

TEST(ResvNoPtpl, PtplRefusedWithoutCapability)
{
    Engine e{Engine::Config{.ptpl_capable = false, .hostid_128 = true}};
    EXPECT_EQ(e.reg(A, rrega(kRegister, false, 3), keys(0, 1)).status, kStatusInvalidField);
    EXPECT_FALSE(e.registered(A));
    EXPECT_EQ(e.set_ptpl(true), kStatusInvalidField);
    EXPECT_EQ(e.set_ptpl(false), kStatusSuccess);
    EXPECT_EQ(e.reg(A, rrega(kRegister, false, 2), keys(0, 1)).status, kStatusSuccess);
    EXPECT_EQ(rt::resv::rescap(false), 0xfe);  // six types, IEK_13; no PTPL
    EXPECT_EQ(rt::resv::rescap(true), 0xff);
}

TEST_F(Resv, SetFeaturesPersistence)
{
    ok(reg(A, 1));
    const uint32_t gen = e.generation();
    EXPECT_EQ(e.set_ptpl(true), kStatusSuccess);
    EXPECT_TRUE(e.ptpl());
    EXPECT_EQ(e.generation(), gen);
}

// --- Acquire -----------------------------------------------------------

TEST_F(Resv, AcquireByNonRegistrantOrWrongKeyConflicts)
{
    EXPECT_EQ(acquire(A, 0, Type::write_exclusive).status, kStatusConflict);
    ok(reg(A, 1));
    EXPECT_EQ(acquire(A, 2, Type::write_exclusive).status, kStatusConflict);
    EXPECT_EQ(e.type(), Type::none);
}

TEST_F(Resv, AcquireInvalidFields)
{
    ok(reg(A, 1));
    EXPECT_EQ(e.acquire(A, act(kAcquire, Type::write_exclusive, true), keys(1)).status, kStatusInvalidField);
    EXPECT_EQ(e.acquire(A, act(kAcquire, Type::none), keys(1)).status, kStatusInvalidField);
    EXPECT_EQ(e.acquire(A, act(kAcquire, Type(7)), keys(1)).status, kStatusInvalidField);
    for (unsigned a = 3; a < 8; a++)
        EXPECT_EQ(e.acquire(A, act(a, Type::write_exclusive), keys(1)).status, kStatusInvalidField) << a;
    EXPECT_EQ(e.acquire(A, act(kAcquire, Type::write_exclusive), cut(keys(1), 8)).status,
              kStatusInvalidField);
    EXPECT_EQ(e.type(), Type::none);
}

class EachType : public Resv, public ::testing::WithParamInterface<Type> {};

TEST_P(EachType, AcquireAgainAndByOthers)
{
    const Type t = GetParam();
    const Type other = t == Type::write_exclusive ? Type::exclusive_access : Type::write_exclusive;
    ok(reg(A, 1));
    ok(reg(B, 2));
    const uint32_t gen = e.generation();
    ok(acquire(A, 1, t));
    EXPECT_TRUE(e.holds(A));
    ok(acquire(A, 1, t));  // the holder, same type: success
    EXPECT_EQ(acquire(A, 1, other).status, kStatusConflict);
    // Another registrant: a holder too for types 5 and 6, then the same
    // type succeeds; otherwise a conflict.
    if (rt::resv::all_registrants(t))
        ok(acquire(B, 2, t));
    else
        EXPECT_EQ(acquire(B, 2, t).status, kStatusConflict);
    EXPECT_EQ(acquire(B, 2, other).status, kStatusConflict);
    EXPECT_EQ(e.type(), t);
    EXPECT_EQ(e.generation(), gen);  // acquiring does not count
}

// --- Release and Clear ----------------------------------------------------

TEST_P(EachType, ReleaseNoticesRegistrantsOnlyTypes)
{
    const Type t = GetParam();
    ok(reg(A, 1));
    ok(reg(B, 2));
    ok(reg(C, 3));
    ok(acquire(A, 1, t));
    const uint32_t gen = e.generation();
    const Outcome o = release(A, 1, t);
    ok(o);
    EXPECT_EQ(e.type(), Type::none);
    EXPECT_EQ(e.generation(), gen);  // releasing does not count
    EXPECT_EQ(e.registrants(), 3u);
    if (t == Type::write_exclusive || t == Type::exclusive_access)
        EXPECT_TRUE(o.notices.empty());
    else
        EXPECT_EQ(o.notices, (std::vector<Notify>{{B, Notice::reservation_released},
                                                  {C, Notice::reservation_released}}));
}

TEST_P(EachType, ReleaseWithWrongTypeIsInvalidField)
{
    const Type t = GetParam();
    const Type other = t == Type::write_exclusive ? Type::exclusive_access : Type::write_exclusive;
    ok(reg(A, 1));
    ok(acquire(A, 1, t));
    EXPECT_EQ(release(A, 1, other).status, kStatusInvalidField);
    EXPECT_EQ(e.type(), t);
}

TEST_P(EachType, UnregisteringTheHolder)
{
    const Type t = GetParam();
    ok(reg(A, 1));
    ok(reg(B, 2));
    ok(acquire(A, 1, t));
    const Outcome o = unreg(A, 1);
    ok(o);
    if (rt::resv::all_registrants(t)) {
        // Held by every registrant: it stays while one is left.
        EXPECT_EQ(e.type(), t);
        EXPECT_TRUE(e.holds(B));
        EXPECT_TRUE(o.notices.empty());
        ok(unreg(B, 2));
        EXPECT_EQ(e.type(), Type::none);
    } else {
        EXPECT_EQ(e.type(), Type::none);
        if (t == Type::write_exclusive_reg_only || t == Type::exclusive_access_reg_only)
            EXPECT_EQ(o.notices, (std::vector<Notify>{{B, Notice::reservation_released}}));
        else
            EXPECT_TRUE(o.notices.empty());
    }
}

INSTANTIATE_TEST_SUITE_P(SixTypes, EachType, ::testing::ValuesIn(kTypes),
                         [](const auto& info) { return "Type" + std::to_string(unsigned(info.param)); });

TEST_F(Resv, ReleaseByNonHolderSucceedsWithoutEffect)
{
    ok(reg(A, 1));
    ok(reg(B, 2));
    ok(release(B, 2, Type::write_exclusive));  // no reservation at all
    ok(acquire(A, 1, Type::write_exclusive));
    const Outcome o = release(B, 2, Type::exclusive_access);  // not the holder: RTYPE not even checked
    ok(o);
    EXPECT_TRUE(o.notices.empty());
    EXPECT_TRUE(e.holds(A));
    EXPECT_EQ(e.type(), Type::write_exclusive);
}

TEST_F(Resv, ReleaseErrors)
{
    ok(reg(A, 1));
    ok(acquire(A, 1, Type::write_exclusive));
    EXPECT_EQ(release(B, 0, Type::write_exclusive).status, kStatusConflict);  // not a registrant
    EXPECT_EQ(release(A, 2, Type::write_exclusive).status, kStatusConflict);  // wrong CRKEY
    EXPECT_EQ(e.release(A, act(kRelease, Type::write_exclusive, true), keys(1)).status, kStatusInvalidField);
    for (unsigned a = 2; a < 8; a++)
        EXPECT_EQ(e.release(A, act(a, Type::write_exclusive), keys(1)).status, kStatusInvalidField) << a;
    EXPECT_EQ(e.release(A, act(kRelease, Type::write_exclusive), cut(keys(1), 7)).status,
              kStatusInvalidField);
    EXPECT_TRUE(e.holds(A));
}

TEST_F(Resv, AllRegistrantsReleasedByAnyRegistrant)
{
    ok(reg(A, 1));
    ok(reg(B, 2));
    ok(acquire(A, 1, Type::exclusive_access_all_regs));
    const Outcome o = release(B, 2, Type::exclusive_access_all_regs);
    ok(o);
    EXPECT_EQ(e.type(), Type::none);
    EXPECT_EQ(o.notices, (std::vector<Notify>{{A, Notice::reservation_released}}));
}

TEST_F(Resv, ClearDropsEverythingAndNoticesOthers)
{
    ok(reg(A, 1));
    ok(reg(B, 2));
    ok(reg(C, 3));
    ok(acquire(B, 2, Type::write_exclusive_reg_only));
    const uint32_t gen = e.generation();
    const Outcome o = clear(A, 1);  // any registrant may clear, holder or not
    ok(o);
    EXPECT_EQ(e.type(), Type::none);
    EXPECT_EQ(e.registrants(), 0u);
    EXPECT_EQ(e.generation(), gen + 1);
    EXPECT_EQ(o.notices, (std::vector<Notify>{{B, Notice::reservation_preempted},
                                              {C, Notice::reservation_preempted}}));
}

TEST_F(Resv, ClearNeedsARegistrantWithItsKey)
{
    ok(reg(A, 1));
    EXPECT_EQ(clear(B, 1).status, kStatusConflict);
    EXPECT_EQ(clear(A, 2).status, kStatusConflict);
    EXPECT_EQ(e.registrants(), 1u);
    EXPECT_EQ(e.generation(), 1u);
}

// --- Preempt ---------------------------------------------------------------

TEST_F(Resv, PreemptTheHolder)
{
    ok(reg(A, 0xa));
    ok(reg(B, 0xb));
    ok(reg(C, 0xc));
    ok(acquire(A, 0xa, Type::write_exclusive_reg_only));
    const uint32_t gen = e.generation();
    const Outcome o = preempt(B, 0xb, 0xa, Type::write_exclusive_reg_only);
    ok(o);
    EXPECT_FALSE(e.registered(A));
    EXPECT_TRUE(e.holds(B));
    EXPECT_EQ(e.type(), Type::write_exclusive_reg_only);
    EXPECT_EQ(e.generation(), gen + 1);
    // The same type: only the preempted host hears of it.
    EXPECT_EQ(o.notices, (std::vector<Notify>{{A, Notice::registration_preempted}}));
    EXPECT_TRUE(o.aborted.empty());  // plain preempt aborts nothing
}

TEST_F(Resv, PreemptTheHolderWithAnotherTypeReleasesForTheRest)
{
    ok(reg(A, 0xa));
    ok(reg(B, 0xb));
    ok(reg(C, 0xc));
    ok(acquire(A, 0xa, Type::write_exclusive_reg_only));
    const Outcome o = preempt(B, 0xb, 0xa, Type::exclusive_access, true);
    ok(o);
    EXPECT_EQ(e.type(), Type::exclusive_access);
    EXPECT_TRUE(e.holds(B));
    EXPECT_EQ(o.notices, (std::vector<Notify>{{A, Notice::registration_preempted},
                                              {C, Notice::reservation_released}}));
    EXPECT_EQ(o.aborted, std::vector<HostId>{A});
}

TEST_F(Resv, PreemptTheHolderTakesEveryRegistrantOfItsKey)
{
    ok(reg(A, 0xa));
    ok(reg(C, 0xa));  // same key, other host
    ok(reg(B, 0xb));
    ok(acquire(A, 0xa, Type::exclusive_access));
    const Outcome o = preempt(B, 0xb, 0xa, Type::exclusive_access);
    ok(o);
    EXPECT_EQ(e.registrants(), 1u);
    EXPECT_EQ(o.notices, (std::vector<Notify>{{A, Notice::registration_preempted},
                                              {C, Notice::registration_preempted}}));
}

TEST_F(Resv, HolderPreemptsItselfToChangeType)
{
    ok(reg(A, 0xa));
    ok(reg(B, 0xb));
    ok(acquire(A, 0xa, Type::write_exclusive_reg_only));
    const Outcome o = preempt(A, 0xa, 0xa, Type::exclusive_access_reg_only);
    ok(o);
    EXPECT_TRUE(e.registered(A));
    EXPECT_TRUE(e.holds(A));
    EXPECT_EQ(e.type(), Type::exclusive_access_reg_only);
    EXPECT_EQ(o.notices, (std::vector<Notify>{{B, Notice::reservation_released}}));
}

TEST_F(Resv, PreemptARegistrationOnly)
{
    ok(reg(A, 0xa));
    ok(reg(B, 0xb));
    ok(reg(C, 0xc));
    ok(acquire(A, 0xa, Type::write_exclusive));
    // PRKEY names a registrant that does not hold: it goes, the
    // reservation stays as it was (RTYPE is not used).
    const Outcome o = preempt(B, 0xb, 0xc, Type::exclusive_access);
    ok(o);
    EXPECT_FALSE(e.registered(C));
    EXPECT_TRUE(e.holds(A));
    EXPECT_EQ(e.type(), Type::write_exclusive);
    EXPECT_EQ(o.notices, (std::vector<Notify>{{C, Notice::registration_preempted}}));
}

TEST_F(Resv, PreemptWithZeroKeyOfSingleHolderIsInvalidField)
{
    ok(reg(A, 0xa));
    ok(reg(B, 0));  // even with a registrant of key 0
    ok(acquire(A, 0xa, Type::write_exclusive));
    const uint32_t gen = e.generation();
    EXPECT_EQ(preempt(B, 0, 0, Type::write_exclusive).status, kStatusInvalidField);
    EXPECT_TRUE(e.registered(B));
    EXPECT_EQ(e.generation(), gen);
}

TEST_F(Resv, PreemptMatchingNobodyConflicts)
{
    ok(reg(A, 0xa));
    ok(reg(B, 0xb));
    ok(acquire(A, 0xa, Type::write_exclusive));
    const uint32_t gen = e.generation();
    EXPECT_EQ(preempt(B, 0xb, 0x77, Type::write_exclusive).status, kStatusConflict);
    EXPECT_EQ(e.generation(), gen);
    ok(release(A, 0xa, Type::write_exclusive));
    EXPECT_EQ(preempt(B, 0xb, 0x77, Type::write_exclusive).status, kStatusConflict);
}

TEST_F(Resv, PreemptWithoutReservationUnregistersOnly)
{
    ok(reg(A, 0xa));
    ok(reg(B, 0xb));
    const Outcome o = preempt(B, 0xb, 0xa, Type::write_exclusive);
    ok(o);
    EXPECT_FALSE(e.registered(A));
    EXPECT_EQ(e.type(), Type::none);  // nothing acquired
    EXPECT_EQ(o.notices, (std::vector<Notify>{{A, Notice::registration_preempted}}));
}

TEST_F(Resv, PreemptByNonRegistrantOrWrongKeyConflicts)
{
    ok(reg(A, 0xa));
    ok(acquire(A, 0xa, Type::write_exclusive));
    EXPECT_EQ(preempt(B, 0xb, 0xa, Type::write_exclusive).status, kStatusConflict);
    ok(reg(B, 0xb));
    EXPECT_EQ(preempt(B, 0xc, 0xa, Type::write_exclusive).status, kStatusConflict);
    EXPECT_TRUE(e.holds(A));
}

TEST_F(Resv, PreemptAllRegistrantsWithZeroKey)
{
    ok(reg(A, 0xa));
    ok(reg(B, 0xb));
    ok(reg(C, 0xc));
    ok(acquire(A, 0xa, Type::write_exclusive_all_regs));
    const Outcome o = preempt(B, 0xb, 0, Type::exclusive_access, true);
    ok(o);
    EXPECT_EQ(e.registrants(), 1u);
    EXPECT_TRUE(e.holds(B));
    EXPECT_EQ(e.type(), Type::exclusive_access);
    EXPECT_EQ(o.notices, (std::vector<Notify>{{A, Notice::registration_preempted},
                                              {C, Notice::registration_preempted}}));
    EXPECT_EQ(o.aborted, (std::vector<HostId>{A, C}));
}

TEST_F(Resv, PreemptAllRegistrantsWithAKey)
{
    ok(reg(A, 0xa));
    ok(reg(B, 0xb));
    ok(reg(C, 0xc));
    ok(acquire(A, 0xa, Type::exclusive_access_all_regs));
    // Non-zero PRKEY: those registrants go, the reservation stays, held
    // by the rest; RTYPE does not apply.
    const Outcome o = preempt(B, 0xb, 0xa, Type::write_exclusive);
    ok(o);
    EXPECT_FALSE(e.registered(A));
    EXPECT_EQ(e.type(), Type::exclusive_access_all_regs);
    EXPECT_TRUE(e.holds(B));
    EXPECT_TRUE(e.holds(C));
    EXPECT_EQ(o.notices, (std::vector<Notify>{{A, Notice::registration_preempted}}));
    EXPECT_EQ(preempt(B, 0xb, 0x99, Type::write_exclusive).status, kStatusConflict);
}

TEST_F(Resv, PreemptAllRegistrantsZeroKeyAlone)
{
    ok(reg(A, 0xa));
    ok(acquire(A, 0xa, Type::exclusive_access_all_regs));
    const Outcome o = preempt(A, 0xa, 0, Type::write_exclusive);
    ok(o);
    EXPECT_EQ(e.type(), Type::write_exclusive);
    EXPECT_TRUE(e.holds(A));
    EXPECT_TRUE(o.notices.empty());
}

// --- Generation ------------------------------------------------------------

TEST_F(Resv, GenerationCountsRegisterPreemptAndClearOnly)
{
    EXPECT_EQ(e.generation(), 0u);
    ok(reg(A, 1));  // +1
    ok(reg(B, 2));  // +1
    ok(e.reg(B, rrega(kReplace), keys(2, 3)));  // +1
    EXPECT_EQ(e.generation(), 3u);
    ok(acquire(A, 1, Type::write_exclusive));
    ok(release(A, 1, Type::write_exclusive));
    ok(acquire(A, 1, Type::write_exclusive));
    EXPECT_EQ(e.generation(), 3u);
    ok(preempt(B, 3, 1, Type::write_exclusive));  // +1
    EXPECT_EQ(e.generation(), 4u);
    ok(reg(C, 4));                                // +1
    ok(preempt(B, 3, 4, Type::write_exclusive, true));  // +1
    EXPECT_EQ(e.generation(), 6u);
    EXPECT_EQ(reg(B, 9).status, kStatusConflict);  // failures: no change
    EXPECT_EQ(clear(A, 1).status, kStatusConflict);
    EXPECT_EQ(e.generation(), 6u);
    ok(clear(B, 3));  // +1
    EXPECT_EQ(e.generation(), 7u);
}

TEST_F(Resv, GenerationWraps)
{
    ASSERT_TRUE(e.load("gen 4294967295\ntype 0\nholder " + std::string(32, '0') + "\nptpl 0\n"));
    EXPECT_EQ(e.generation(), 0xffffffffu);
    ok(reg(A, 1));
    EXPECT_EQ(e.generation(), 0u);
}

// --- Report ----------------------------------------------------------------

uint16_t le16(const uint8_t* p)
{
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}
uint32_t le32(const uint8_t* p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
uint64_t le64(const uint8_t* p)
{
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

TEST_F(Resv, ReportWithoutEdsRefusedFor128BitHostIds)
{
    ok(reg(A, 1));
    std::vector<uint8_t> buf(4096, 0xaa);
    EXPECT_EQ(e.report(0, buf), kStatusHostIdInconsistent);
}

TEST_F(Resv, ReportExtendedLayout)
{
    ok(e.reg(A, rrega(kRegister, false, 3), keys(0, 0x1122334455667788)));
    ok(reg(B, 0xb));
    ok(acquire(B, 0xb, Type::exclusive_access));
    std::vector<uint8_t> buf(4096, 0xaa);
    ASSERT_EQ(e.report(1, buf), kStatusSuccess);
    EXPECT_EQ(le32(&buf[0]), e.generation());
    EXPECT_EQ(buf[4], 2);             // RTYPE
    EXPECT_EQ(le16(&buf[5]), 2);      // REGCTL
    EXPECT_EQ(buf[9], 1);             // PTPLS
    for (size_t i = 10; i < 64; i++)  // reserved
        ASSERT_EQ(buf[i], 0) << i;
    const uint8_t* a = &buf[64];
    EXPECT_EQ(le16(a), 0xffff);  // CNTLID: dynamic controller model
    EXPECT_EQ(a[2], 0);          // RCSTS: A does not hold
    EXPECT_EQ(le64(a + 8), 0x1122334455667788u);
    EXPECT_EQ(0, std::memcmp(a + 16, A.data(), 16));
    const uint8_t* b = &buf[128];
    EXPECT_EQ(b[2], 1);
    EXPECT_EQ(le64(b + 8), 0xbu);
    EXPECT_EQ(0, std::memcmp(b + 16, B.data(), 16));
    for (size_t i = 192; i < buf.size(); i++)
        ASSERT_EQ(buf[i], 0) << i;
    EXPECT_EQ(e.report_size(true), 192u);
}

TEST(ResvReport64, ShortFormWith64BitHostIds)
{
    Engine e{Engine::Config{.ptpl_capable = false, .hostid_128 = false}};
    HostId a{}, b{};
    a[0] = 0x11;
    a[7] = 0x17;
    b[0] = 0x22;
    ASSERT_EQ(e.reg(a, rrega(kRegister), keys(0, 5)).status, kStatusSuccess);
    ASSERT_EQ(e.reg(b, rrega(kRegister), keys(0, 6)).status, kStatusSuccess);
    ASSERT_EQ(e.acquire(a, act(kAcquire, Type::write_exclusive_all_regs), keys(5)).status, kStatusSuccess);
    std::vector<uint8_t> buf(100, 0xaa);
    ASSERT_EQ(e.report(0, buf), kStatusSuccess);
    EXPECT_EQ(le32(&buf[0]), 2u);  // two registers; acquiring does not count
    EXPECT_EQ(buf[4], 5);
    EXPECT_EQ(le16(&buf[5]), 2);
    EXPECT_EQ(buf[9], 0);
    const uint8_t* p = &buf[24];
    EXPECT_EQ(le16(p), 0xffff);
    EXPECT_EQ(p[2], 1);  // all registrants hold
    EXPECT_EQ(0, std::memcmp(p + 8, a.data(), 8));
    EXPECT_EQ(le64(p + 16), 5u);
    p += 24;
    EXPECT_EQ(p[2], 1);
    EXPECT_EQ(0, std::memcmp(p + 8, b.data(), 8));
    EXPECT_EQ(le64(p + 16), 6u);
    for (size_t i = 72; i < buf.size(); i++)
        ASSERT_EQ(buf[i], 0) << i;
    EXPECT_EQ(e.report_size(false), 72u);
}

TEST_F(Resv, ReportBoundedByTheLengthAsked)
{
    ok(reg(A, 1));
    ok(reg(B, 2));
    ok(reg(C, 3));
    // Header, one entry and 10 bytes of the next: REGCTL still says 3,
    // nothing is written past the buffer.
    std::vector<uint8_t> mem(64 + 64 + 10 + 16, 0xaa);
    std::span<uint8_t> buf(mem.data(), 64 + 64 + 10);
    ASSERT_EQ(e.report(1, buf), kStatusSuccess);
    EXPECT_EQ(le16(&buf[5]), 3);
    EXPECT_EQ(le64(&buf[64 + 8]), 1u);
    EXPECT_EQ(le16(&buf[128]), 0xffff);
    EXPECT_EQ(buf[136], 2) << "the first 2 bytes of B's key, the last the buffer holds";
    EXPECT_EQ(buf[137], 0);
    for (size_t i = buf.size(); i < mem.size(); i++)
        ASSERT_EQ(mem[i], 0xaa) << i;
    // Shorter than the header: what fits of it.
    std::array<uint8_t, 8> tiny;
    tiny.fill(0xaa);
    ASSERT_EQ(e.report(1, tiny), kStatusSuccess);
    EXPECT_EQ(le32(&tiny[0]), 3u);
    EXPECT_EQ(tiny[4], 0);
    EXPECT_EQ(le16(&tiny[5]), 3);
    EXPECT_EQ(tiny[7], 0);
}

TEST_F(Resv, ReportEmpty)
{
    std::vector<uint8_t> buf(64, 0xaa);
    ASSERT_EQ(e.report(1, buf), kStatusSuccess);
    for (size_t i = 0; i < buf.size(); i++)
        ASSERT_EQ(buf[i], 0) << i;
}

// --- Notices ---------------------------------------------------------------

std::array<uint8_t, NoticeLog::kPageSize> page_of(NoticeLog& log, bool rae = false)
{
    std::array<uint8_t, NoticeLog::kPageSize> p;
    p.fill(0xaa);
    log.read(p, rae);
    return p;
}

TEST(ResvNotices, PagesInOrderWithCountAndAvailable)
{
    NoticeLog log;
    EXPECT_TRUE(log.add(Notice::registration_preempted, 1));
    EXPECT_TRUE(log.add(Notice::reservation_released, 1));
    EXPECT_TRUE(log.add(Notice::reservation_preempted, 1));
    auto p = page_of(log);
    EXPECT_EQ(le64(&p[0]), 1u);
    EXPECT_EQ(p[8], 1);  // Registration Preempted
    EXPECT_EQ(p[9], 2);  // two more available
    EXPECT_EQ(le32(&p[12]), 1u);
    for (size_t i = 16; i < p.size(); i++)
        ASSERT_EQ(p[i], 0) << i;
    p = page_of(log);
    EXPECT_EQ(le64(&p[0]), 2u);
    EXPECT_EQ(p[8], 2);
    EXPECT_EQ(p[9], 1);
    p = page_of(log);
    EXPECT_EQ(le64(&p[0]), 3u);
    EXPECT_EQ(p[8], 3);
    EXPECT_EQ(p[9], 0);
    // Nothing left: the empty page, all zeroes.
    p = page_of(log);
    for (size_t i = 0; i < p.size(); i++)
        ASSERT_EQ(p[i], 0) << i;
}

TEST(ResvNotices, MaskSuppressesPages)
{
    NoticeLog log;
    EXPECT_EQ(log.set_mask(1u << 1 | 1u << 3), kStatusSuccess);  // REGPRE, RESPRE
    EXPECT_FALSE(log.add(Notice::registration_preempted, 1));
    EXPECT_FALSE(log.add(Notice::reservation_preempted, 1));
    EXPECT_TRUE(log.add(Notice::reservation_released, 1));
    EXPECT_EQ(log.pending(), 1u);
    const auto p = page_of(log);
    EXPECT_EQ(p[8], 2);
    EXPECT_EQ(le64(&p[0]), 1u) << "masked notices create no page and no count";
    EXPECT_EQ(log.set_mask(1), kStatusInvalidField);
    EXPECT_EQ(log.set_mask(1u << 4), kStatusInvalidField);
    EXPECT_EQ(log.mask(), 0xau);
}

TEST(ResvNotices, OverflowLosesTheOldestAndTheCountShowsIt)
{
    NoticeLog log;
    for (size_t i = 0; i < NoticeLog::kDepth + 3; i++)
        log.add(Notice::reservation_released, 1);
    EXPECT_EQ(log.pending(), NoticeLog::kDepth);
    const auto p = page_of(log);
    EXPECT_EQ(le64(&p[0]), 4u);  // 1-3 lost
    EXPECT_EQ(p[9], NoticeLog::kDepth - 1);
}

TEST(ResvNotices, EventOncePerReadWithoutRae)
{
    NoticeLog log;
    EXPECT_FALSE(log.event_due());
    log.add(Notice::reservation_released, 1);
    EXPECT_TRUE(log.event_due());
    log.event_sent();
    log.add(Notice::reservation_released, 1);
    EXPECT_FALSE(log.event_due()) << "one event until the log is read";
    page_of(log, true);  // RAE set: the event stays outstanding
    EXPECT_FALSE(log.event_due());
    page_of(log, false);  // read with RAE clear: re-armed, but nothing waits
    EXPECT_FALSE(log.event_due());
    log.add(Notice::registration_preempted, 1);
    EXPECT_TRUE(log.event_due());
}

// --- Persistence (PTPL) ------------------------------------------------------

TEST_F(Resv, SaveAndLoadKeepTheState)
{
    ok(e.reg(A, rrega(kRegister, false, 3), keys(0, 0xfffffffffffffff0)));
    ok(reg(B, 0xb));
    ok(acquire(B, 0xb, Type::exclusive_access_reg_only));
    Engine f{Engine::Config{.ptpl_capable = true, .hostid_128 = true}};
    ASSERT_TRUE(f.load(e.save()));
    std::vector<uint8_t> r1(4096), r2(4096);
    ASSERT_EQ(e.report(1, r1), kStatusSuccess);
    ASSERT_EQ(f.report(1, r2), kStatusSuccess);
    EXPECT_EQ(r1, r2);
    EXPECT_TRUE(f.holds(B));
    EXPECT_FALSE(f.allows(C, Access::read));
}

TEST_F(Resv, LoadRefusesMalformedState)
{
    ok(reg(A, 1));
    const std::string z(32, '0');
    const std::string bad[] = {
        "",
        "gen 1\n",                                                  // no type
        "gen 1\ntype 9\nholder " + z + "\nptpl 0\n",                // no such type
        "gen 1\ntype 1\nholder " + z + "\nptpl 0\n",                // holder not registered
        "gen 1\ntype 5\nholder " + z + "\nptpl 0\n",                // all registrants, none
        "gen x\ntype 0\nholder " + z + "\nptpl 0\n",                // not a number
        "gen 1\ntype 0\nholder 12\nptpl 0\n",                       // short host id
        "gen 1\ntype 0\nholder " + z + "\nptpl 0\nreg " + z + " 1\nreg " + z + " 2\n",  // twice
        "gen 1\ntype 0\nholder " + z + "\nptpl 2\n",
        "gen 1\ntype 0\nholder " + z + "\nptpl 0",                  // cut short
        "gen 1\ntype 0\nholder " + z + "\nptpl 0\nfoo 1\n",
    };
    for (const auto& s : bad) {
        EXPECT_FALSE(e.load(s)) << s;
        EXPECT_TRUE(e.registered(A)) << "unchanged after: " << s;
        EXPECT_EQ(e.generation(), 1u);
    }
}

}  // namespace
