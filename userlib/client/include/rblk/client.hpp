// The typed client of the "rblk" generic netlink family: what rblkctl and
// other programs call to create, inspect and delete controllers.
#pragma once

#include "rblk/attr_codec.hpp"
#include "rblk/connect_options.hpp"
#include "rblk/controller.hpp"
#include "rblk/family_notice.hpp"
#include "rblk/genl_socket.hpp"

#include <functional>
#include <string>
#include <vector>

namespace rblk {

class Client {
public:
    // Throws ModuleNotLoaded when rblk.ko is not loaded.
    Client();

    // Validates opts (InvalidOption), then creates a controller; returns it as
    // the kernel reports it, namespaces included.
    // A traddr host name is resolved first (resolve_traddr()).
    ControllerInfo connect(const ConnectOptions& opts);
    void disconnect(const std::string& name);
    // Deletes every controller connected to subsystem `nqn`; returns the
    // names it had just before (the kernel's reply does not list them).
    std::vector<std::string> disconnect_nqn(const std::string& nqn);
    // Deletes every controller; returns their names.
    std::vector<std::string> disconnect_all();
    std::vector<ControllerInfo> list();
    // list() with each controller's DH-HMAC-CHAP secrets, for save: root
    // only (KernelError EPERM for others, with the kernel's reason).
    std::vector<ControllerInfo> list_with_secrets();
    ControllerInfo show(const std::string& name);
    // The controller's counters: only id, name and stats are filled.
    ControllerInfo stats(const std::string& name);
    // The I/O policy of a subsystem (RBLK_CMD_SET_IOPOLICY), which all
    // its controllers share.
    void set_iopolicy(const SubsystemRef& ref, Iopolicy policy);
    // Blocks, calling on_event for each state change until it returns false.
    void subscribe(const std::function<bool(const StateEvent&)>& on_event);
    // Like subscribe, and survives the module being unloaded and loaded
    // again: nlctrl's notices of the family going away and coming back go to
    // on_module (then the events group is joined again, under its new id).
    // Asynchronous events (RBLK_CMD_AEN) go to on_aen, reservation notices
    // (RBLK_CMD_RESV_NOTICE) to on_resv, when given.
    void monitor(const std::function<bool(const StateEvent&)>& on_event,
                 const std::function<bool(const FamilyNotice&)>& on_module,
                 const std::function<bool(const AenEvent&)>& on_aen = {},
                 const std::function<bool(const ResvNoticeEvent&)>& on_resv = {});

    // Raw entry point: a request of `cmd` whose attributes put_attrs writes,
    // with librblk's error handling (extack, attribute names). For tools and
    // tests that must send exactly what they are told.
    using AttrWriter = std::function<void(nl_msg*)>;
    void request(std::uint8_t cmd, int flags, const AttrWriter& put_attrs,
                 const ReplyHandler& on_reply, std::string_view context);

private:
    GenlSocket sock_;
};

}  // namespace rblk
