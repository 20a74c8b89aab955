// Attribute and state names (rblk/attr_names.hpp, state_name()).
#include <rblk/attr_names.hpp>
#include <rblk/controller.hpp>

#include <gtest/gtest.h>

#include <set>

namespace rblk {
namespace {

TEST(AttrNames, ConnectAttributesHaveTheirDocumentedNames)
{
    EXPECT_EQ(attr_name(RBLK_ATTR_TRANSPORT), "transport");
    EXPECT_EQ(attr_name(RBLK_ATTR_TRADDR), "traddr");
    EXPECT_EQ(attr_name(RBLK_ATTR_TRSVCID), "trsvcid");
    EXPECT_EQ(attr_name(RBLK_ATTR_SUBNQN), "subnqn");
    EXPECT_EQ(attr_name(RBLK_ATTR_HOSTNQN), "hostnqn");
    EXPECT_EQ(attr_name(RBLK_ATTR_HOSTID), "hostid");
    EXPECT_EQ(attr_name(RBLK_ATTR_NR_IO_QUEUES), "nr_io_queues");
    EXPECT_EQ(attr_name(RBLK_ATTR_QUEUE_SIZE), "queue_size");
    EXPECT_EQ(attr_name(RBLK_ATTR_KATO), "kato");
    EXPECT_EQ(attr_name(RBLK_ATTR_RECONNECT_DELAY), "reconnect_delay");
    EXPECT_EQ(attr_name(RBLK_ATTR_CTRL_LOSS_TMO), "ctrl_loss_tmo");
    EXPECT_EQ(attr_name(RBLK_ATTR_FAST_IO_FAIL_TMO), "fast_io_fail_tmo");
    EXPECT_EQ(attr_name(RBLK_ATTR_DUPLICATE_CONNECT), "duplicate_connect");
    EXPECT_EQ(attr_name(RBLK_ATTR_CTRL_NAME), "ctrl_name");
    EXPECT_EQ(attr_name(RBLK_ATTR_CTRL_ID), "ctrl_id");
}

TEST(AttrNames, EveryValueOfEachEnumHasAUniqueName)
{
    const struct {
        std::string (*name)(int);
        int max;
    } tables[] = {{attr_name, RBLK_ATTR_MAX},
                  {ns_attr_name, RBLK_NS_ATTR_MAX},
                  {stat_attr_name, RBLK_STAT_ATTR_MAX}};
    for (const auto& t : tables) {
        std::set<std::string> seen;
        for (int type = 0; type <= t.max; ++type) {
            const std::string n = t.name(type);
            EXPECT_FALSE(n.empty()) << type;
            EXPECT_EQ(n.find("attr#"), std::string::npos) << type;
            EXPECT_TRUE(seen.insert(n).second) << "duplicate " << n;
        }
    }
}

TEST(AttrNames, UnknownTypesAreNumbered)
{
    EXPECT_EQ(attr_name(RBLK_ATTR_MAX + 1), "attr#" + std::to_string(RBLK_ATTR_MAX + 1));
    EXPECT_EQ(attr_name(-1), "attr#-1");
    EXPECT_EQ(ns_attr_name(RBLK_NS_ATTR_DISK), "disk");
    EXPECT_EQ(stat_attr_name(RBLK_STAT_ATTR_WRITE_BYTES), "write_bytes");
}

// The counter table (rblk/controller.hpp) decodes, names and prints the
// counters: a uapi counter without its row would be dropped silently.
TEST(StatNames, EveryUapiCounterHasOneRowInTheCounterTable)
{
    CtrlStats hits;  // each row adds 1 to its field: a field hit twice has two rows
    for (int a = RBLK_STAT_ATTR_PAD + 1; a <= RBLK_STAT_ATTR_MAX; ++a) {
        const CtrlStatField* f = ctrl_stat_field(a);
        ASSERT_NE(f, nullptr) << "counter attribute " << a << " has no row in kCtrlStatFields";
        EXPECT_EQ(f->attr, a);
        EXPECT_EQ(stat_attr_name(a), f->name);
        hits.*f->field += 1;
    }
    EXPECT_EQ(kCtrlStatFields.size(),
              static_cast<std::size_t>(RBLK_STAT_ATTR_MAX - RBLK_STAT_ATTR_PAD));
    for (const CtrlStatField& f : kCtrlStatFields)
        EXPECT_EQ(hits.*f.field, 1u) << f.name << ": one CtrlStats field, two rows";
    for (int a : {int{RBLK_STAT_ATTR_UNSPEC}, int{RBLK_STAT_ATTR_PAD}, RBLK_STAT_ATTR_MAX + 1})
        EXPECT_EQ(ctrl_stat_field(a), nullptr) << a;
}

TEST(StateNames, EveryStateHasItsContractName)
{
    EXPECT_EQ(state_name(CtrlState::New), "new");
    EXPECT_EQ(state_name(CtrlState::Connecting), "connecting");
    EXPECT_EQ(state_name(CtrlState::Live), "live");
    EXPECT_EQ(state_name(CtrlState::Resetting), "resetting");
    EXPECT_EQ(state_name(CtrlState::Deleting), "deleting");
    EXPECT_EQ(state_name(CtrlState::Dead), "dead");
    EXPECT_EQ(state_name(static_cast<CtrlState>(__RBLK_CTRL_STATE_MAX)),
              "unknown(" + std::to_string(__RBLK_CTRL_STATE_MAX) + ")");
}

}  // namespace
}  // namespace rblk
