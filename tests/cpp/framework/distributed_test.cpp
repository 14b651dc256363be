// sampan/distributed.h in a process no MPI launcher started: rank 0 of 1, the collectives are
// their one-rank identities, and bad input is refused with the problem named. (The collectives
// across ranks are tested under mpirun by tests/python/test_distributed.py.)
#include <gtest/gtest.h>

#include <complex>

#include "sampan/distributed.h"
#include "sampan/ops.h"
#include "../test_util.h"
#include "../thrown_message.h"

using namespace sampan;
namespace dist = sampan::distributed;

TEST(Distributed, OneRankOutsideALauncher) {
  if (dist::under_launcher()) GTEST_SKIP() << "this test checks a process that no MPI launcher started";
  EXPECT_FALSE(dist::active());
  EXPECT_EQ(dist::rank(), 0);
  EXPECT_EQ(dist::world_size(), 1);
  Tensor t = from_vector({1.5, -2.0}, {2});
  const auto version = t.version();
  dist::all_reduce(t, dist::ReduceOp::Avg);
  EXPECT_EQ(t.data<double>()[0], 1.5);
  EXPECT_EQ(t.data<double>()[1], -2.0);
  EXPECT_GT(t.version(), version);  // written in place, as far as autograd knows
  dist::broadcast(t, 0);
  auto all = dist::all_gather(t);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_NE(all[0].impl(), t.impl());
  EXPECT_EQ(all[0].data<double>()[1], -2.0);
  dist::barrier();
}

TEST(Distributed, RefusesWhatItCannotReduce) {
  using test::thrown_message;
  EXPECT_NE(thrown_message([] { dist::parse_reduce_op("median"); }).find("'median' is not one of"), std::string::npos);
  Tensor c = Tensor::empty({1}, DType::Complex128);
  EXPECT_NE(thrown_message([&] { dist::all_reduce(c, dist::ReduceOp::Max); }).find("'max' of complex128"),
            std::string::npos);
  Tensor i = Tensor::empty({2}, DType::Int64);
  EXPECT_NE(thrown_message([&] { dist::all_reduce(i, dist::ReduceOp::Avg); }).find("'avg' of int64 would round"),
            std::string::npos);
  Tensor b = Tensor::empty({2}, DType::Bool);
  EXPECT_NE(thrown_message([&] { dist::all_reduce(b); }).find("dtype bool is not supported"), std::string::npos);
  Tensor m = transpose(ones({2, 3}), 0, 1);
  EXPECT_NE(thrown_message([&] { dist::all_reduce(m); }).find("not contiguous"), std::string::npos);
  EXPECT_NE(thrown_message([&] { dist::broadcast(ones({2}), 1); }).find("root 1 is not a rank (0 to 0)"),
            std::string::npos);
  EXPECT_NE(thrown_message([] { dist::all_reduce(Tensor()); }).find("undefined"), std::string::npos);
  EXPECT_NE(thrown_message([] { dist::send(ones({2}), 0); }).find("dest 0 is this rank"), std::string::npos);
  EXPECT_NE(thrown_message([] { dist::recv(ones({2}), 1); }).find("source 1 is not a rank (0 to 0)"),
            std::string::npos);
}
