// RAII owners for the rdma_cm and verbs objects of the test target.
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace rt {

template <auto Fn>
struct Release {
    template <typename T>
    void operator()(T* p) const
    {
        (void)Fn(p);
    }
};

using EventChannel = std::unique_ptr<rdma_event_channel, Release<rdma_destroy_event_channel>>;
using CmId = std::unique_ptr<rdma_cm_id, Release<rdma_destroy_id>>;
using Pd = std::unique_ptr<ibv_pd, Release<ibv_dealloc_pd>>;
using Mr = std::unique_ptr<ibv_mr, Release<ibv_dereg_mr>>;
using Cq = std::unique_ptr<ibv_cq, Release<ibv_destroy_cq>>;
using CompChannel = std::unique_ptr<ibv_comp_channel, Release<ibv_destroy_comp_channel>>;

// The QP belongs to its cm_id: rdma_destroy_qp() before the id goes.
class QpOwner {
public:
    QpOwner() = default;
    void adopt(rdma_cm_id* id) { id_ = id; }
    QpOwner(const QpOwner&) = delete;
    QpOwner& operator=(const QpOwner&) = delete;
    ~QpOwner()
    {
        if (id_ && id_->qp)
            rdma_destroy_qp(id_);
    }

private:
    rdma_cm_id* id_ = nullptr;
};

// A failed verbs/cm call: what was attempted, with errno's text.
[[noreturn]] void throw_errno(const std::string& what);

template <typename T>
T* check_ptr(T* p, const std::string& what)
{
    if (!p)
        throw_errno(what);
    return p;
}

inline void check_rc(int rc, const std::string& what)
{
    if (rc)
        throw_errno(what);
}

}  // namespace rt
