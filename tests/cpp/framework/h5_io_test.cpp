// Tests of save/load (framework/src/io): round trips of every kind and dtype, the file layout
// seen through the plain HDF5 C API, atomic replacement, and the errors for missing, foreign,
// truncated and non-HDF5 files.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "sampan/io.h"
#include "sampan/ops.h"

using namespace sampan;
namespace fs = std::filesystem;

namespace {

// A fresh directory per test, removed afterwards.
class H5Io : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("sampan_h5_io_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// The message of the IOError that `f` throws ("" when it throws none).
template <class F> std::string io_error_of(F&& f) {
  try {
    f();
  } catch (const IOError& e) {
    return e.what();
  }
  return "";
}

Tensor arange_of(DType dtype, const Shape& shape) {
  std::vector<double> values(static_cast<size_t>(shape_numel(shape)));
  for (size_t i = 0; i < values.size(); ++i) values[i] = (dtype == DType::Bool) ? double(i % 2) : double(i) - 2.5;
  return from_vector(values, shape, dtype);
}

Tensor complex_tensor(DType dtype) {
  Tensor t = Tensor::empty({3}, dtype);
  for (int i = 0; i < 3; ++i) {
    if (dtype == DType::Complex64) t.data<complex64>()[i] = {float(i) + 0.5f, -float(i)};
    else t.data<complex128>()[i] = {double(i) + 0.25, 1.0 / (i + 1)};
  }
  return t;
}

}  // namespace

TEST_F(H5Io, RoundTripOfEveryKindAndDtype) {
  IoValue tensors = IoValue::dict();
  for (DType dtype : {DType::Bool, DType::Int32, DType::Int64, DType::Float16, DType::BFloat16, DType::Float32,
                      DType::Float64})
    tensors.set(dtype_name(dtype), arange_of(dtype, {2, 3}));
  tensors.set("complex64", complex_tensor(DType::Complex64));
  tensors.set("complex128", complex_tensor(DType::Complex128));
  tensors.set("zero_d", scalar_tensor(3.5, DType::Float64));
  tensors.set("empty", zeros({0, 4}, DType::Float32));
  tensors.set("transposed", transpose(arange_of(DType::Float64, {2, 3}), 0, 1));  // not contiguous

  IoValue tree = IoValue::dict({
      {"tensors", tensors},
      {"int", int64_t{-1234567890123}},
      {"float", 0.1},
      {"nan", std::numeric_limits<double>::quiet_NaN()},
      {"minus_zero", -0.0},
      {"inf", -std::numeric_limits<double>::infinity()},
      {"true", true},
      {"false", false},
      {"str", "énergie ⚛ Å"},
      {"empty_str", ""},
      {"none", IoValue()},
      {"list", IoValue::list({1, 2.5, "three", IoValue::list()})},
      {"tuple", IoValue::tuple({0.9, 0.999})},
      {"empty_dict", IoValue::dict()},
  });
  save(tree, path("tree.h5"));
  IoValue back = load(path("tree.h5"));
  EXPECT_TRUE(back.equals(tree));

  const Tensor& t = back.at("tensors").at("transposed").as_tensor();
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_DOUBLE_EQ(t.data<double>()[1], 0.5);  // element [0, 1] of the transpose = [1, 0] of the original
  EXPECT_EQ(back.at("tensors").at("zero_d").as_tensor().dim(), 0);
  EXPECT_EQ(back.at("tensors").at("empty").as_tensor().shape(), (Shape{0, 4}));
  EXPECT_EQ(back.at("tuple").kind(), IoValue::Kind::Tuple);
  EXPECT_EQ(back.at("list").kind(), IoValue::Kind::List);
  EXPECT_TRUE(std::signbit(back.at("minus_zero").as_double()));
}

TEST_F(H5Io, KeyOrderAndAwkwardKeysSurvive) {
  // Keys in a non-sorted order, with characters HDF5 link names cannot hold.
  std::vector<std::string> keys = {"zeta", "alpha", "a/b", "%2F", "", ".", "..", "layers.0.weight", "mu"};
  IoValue dict = IoValue::dict();
  for (size_t i = 0; i < keys.size(); ++i) dict.set(keys[i], static_cast<int64_t>(i));
  save(dict, path("keys.h5"));
  IoValue back = load(path("keys.h5"));
  ASSERT_EQ(back.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(back.as_dict()[i].first, keys[i]);
    EXPECT_EQ(back.as_dict()[i].second.as_int(), static_cast<int64_t>(i));
  }
}

TEST_F(H5Io, LargeStateDict) {
  // Thousands of keys: the key list attribute outgrows HDF5's 64 KiB compact attribute limit.
  IoValue dict = IoValue::dict();
  for (int i = 0; i < 5000; ++i) dict.set("encoder.layers." + std::to_string(i) + ".weight", scalar_tensor(i));
  dict.set("big", arange_of(DType::Float32, {1000, 300}));
  save(dict, path("big.h5"));
  IoValue back = load(path("big.h5"));
  EXPECT_TRUE(back.equals(dict));
}

TEST_F(H5Io, TopLevelLeaves) {
  Tensor x = arange_of(DType::Float64, {4});
  save(x, path("tensor.h5"));
  EXPECT_TRUE(load(path("tensor.h5")).equals(x));
  save(42, path("int.h5"));
  EXPECT_EQ(load(path("int.h5")).as_int(), 42);
  save(IoValue::list({x, x}), path("list.h5"));
  EXPECT_EQ(load(path("list.h5")).size(), 2u);
}

TEST_F(H5Io, TensorsRequiringGradAreSavedAsData) {
  Tensor w = arange_of(DType::Float64, {2, 2}).requires_grad_();
  save(IoValue::dict({{"w", w}}), path("w.h5"));
  Tensor back = load(path("w.h5")).at("w").as_tensor();
  EXPECT_FALSE(back.requires_grad());
  EXPECT_TRUE(IoValue(back).equals(w));
}

TEST_F(H5Io, SavingTwiceGivesIdenticalBytes) {
  IoValue tree = IoValue::dict({{"w", arange_of(DType::Float32, {3, 3})}, {"step", 7}});
  save(tree, path("a.h5"));
  save(tree, path("b.h5"));
  EXPECT_EQ(read_bytes(path("a.h5")), read_bytes(path("b.h5")));
}

TEST_F(H5Io, LayoutIsPlainHdf5) {
  IoValue tree = IoValue::dict({{"w", arange_of(DType::Float64, {2, 3})}, {"z", complex_tensor(DType::Complex128)}});
  save(tree, path("plain.h5"));
  hid_t file = H5Fopen(path("plain.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_GT(H5Aexists(file, "sampan_format"), 0);
  EXPECT_GT(H5Aexists(file, "sampan_format_version"), 0);
  EXPECT_GT(H5Aexists(file, "keys"), 0);
  // A float64 tensor is a float64 dataset of its shape.
  hid_t w = H5Dopen2(file, "w", H5P_DEFAULT);
  hid_t space = H5Dget_space(w);
  hsize_t dims[2] = {0, 0};
  EXPECT_EQ(H5Sget_simple_extent_ndims(space), 2);
  H5Sget_simple_extent_dims(space, dims, nullptr);
  EXPECT_EQ(dims[0], 2u);
  EXPECT_EQ(dims[1], 3u);
  double values[6];
  EXPECT_GE(H5Dread(w, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), 0);
  EXPECT_DOUBLE_EQ(values[5], 2.5);
  // A complex tensor is a compound {r, i}, as h5py writes numpy.complex128.
  hid_t z = H5Dopen2(file, "z", H5P_DEFAULT);
  hid_t type = H5Dget_type(z);
  EXPECT_EQ(H5Tget_class(type), H5T_COMPOUND);
  EXPECT_EQ(H5Tget_nmembers(type), 2);
  EXPECT_GE(H5Tget_member_index(type, "r"), 0);
  EXPECT_GE(H5Tget_member_index(type, "i"), 0);
  H5Tclose(type);
  H5Dclose(z);
  H5Sclose(space);
  H5Dclose(w);
  H5Fclose(file);
}

TEST_F(H5Io, SaveReplacesAtomicallyAndLeavesNoTemporary) {
  std::string p = path("ckpt.h5");
  save(IoValue::dict({{"step", 1}}), p);
  save(IoValue::dict({{"step", 2}}), p);
  EXPECT_EQ(load(p).at("step").as_int(), 2);
  // A save that fails half way (a string HDF5 cannot hold, after a tensor was written) keeps the
  // previous file and removes its temporary.
  IoValue bad = IoValue::dict({{"w", arange_of(DType::Float64, {100})}, {"bad", std::string("a\0b", 3)}});
  EXPECT_THROW(save(bad, p), ValueError);
  EXPECT_EQ(load(p).at("step").as_int(), 2);
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string(), "ckpt.h5") << "left behind: " << entry.path();
}

TEST_F(H5Io, SaveIntoMissingDirectoryNamesThePath) {
  std::string p = path("no/such/dir/x.h5");
  std::string message = io_error_of([&] { save(IoValue(1), p); });
  EXPECT_NE(message.find(p), std::string::npos) << message;
  EXPECT_NE(message.find("does not exist"), std::string::npos) << message;
}

TEST_F(H5Io, MissingFileNamesThePath) {
  std::string p = path("missing.h5");
  std::string message = io_error_of([&] { load(p); });
  EXPECT_NE(message.find("no such file"), std::string::npos) << message;
  EXPECT_NE(message.find(p), std::string::npos) << message;
}

TEST_F(H5Io, TextFileIsNotASampanFile) {
  std::string p = path("notes.h5");
  write_bytes(p, "this is a text file, not HDF5\n");
  ::testing::internal::CaptureStderr();
  std::string message = io_error_of([&] { load(p); });
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // HDF5 prints nothing of its own
  EXPECT_NE(message.find("not a sampan file / truncated: " + p), std::string::npos) << message;
}

TEST_F(H5Io, TruncatedFileIsReported) {
  std::string p = path("full.h5");
  save(IoValue::dict({{"w", arange_of(DType::Float64, {64, 64})}, {"b", arange_of(DType::Float32, {64})}}), p);
  std::string bytes = read_bytes(p);
  for (size_t keep : {bytes.size() / 2, bytes.size() - 1, size_t{600}, size_t{8}, size_t{0}}) {
    std::string cut = path("cut_" + std::to_string(keep) + ".h5");
    write_bytes(cut, bytes.substr(0, keep));
    ::testing::internal::CaptureStderr();
    std::string message = io_error_of([&] { load(cut); });
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "") << "keep=" << keep;
    EXPECT_NE(message.find("not a sampan file / truncated: " + cut), std::string::npos)
        << "keep=" << keep << ": " << message;
  }
}

TEST_F(H5Io, ForeignHdf5FileNamesWhatIsMissing) {
  std::string p = path("foreign.h5");
  hid_t file = H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t n = 3;
  hid_t space = H5Screate_simple(1, &n, nullptr);
  hid_t data = H5Dcreate2(file, "x", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  double values[3] = {1, 2, 3};
  H5Dwrite(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
  H5Dclose(data);
  H5Sclose(space);
  H5Fclose(file);
  std::string message = io_error_of([&] { load(p); });
  EXPECT_NE(message.find(p), std::string::npos) << message;
  EXPECT_NE(message.find("not a sampan file"), std::string::npos) << message;
  EXPECT_NE(message.find("'sampan_format'"), std::string::npos) << message;
}

TEST_F(H5Io, NewerFormatVersionIsRefused) {
  std::string p = path("future.h5");
  save(IoValue::dict({{"a", 1}}), p);
  hid_t file = H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t attr = H5Aopen(file, "sampan_format_version", H5P_DEFAULT);
  int64_t version = 2;
  H5Awrite(attr, H5T_NATIVE_INT64, &version);
  H5Aclose(attr);
  H5Fclose(file);
  std::string message = io_error_of([&] { load(p); });
  EXPECT_NE(message.find("sampan_format_version 2"), std::string::npos) << message;
  EXPECT_NE(message.find(p), std::string::npos) << message;
}

TEST_F(H5Io, DamagedTreeIsReportedWithTheEntry) {
  // A valid HDF5 file with the sampan attributes whose dict lost an entry.
  std::string p = path("damaged.h5");
  save(IoValue::dict({{"a", 1}, {"b", 2}}), p);
  hid_t file = H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  H5Ldelete(file, "b", H5P_DEFAULT);
  H5Fclose(file);
  std::string message = io_error_of([&] { load(p); });
  EXPECT_NE(message.find("not a sampan file / truncated: " + p), std::string::npos) << message;
  EXPECT_NE(message.find("1 entries but 2 keys"), std::string::npos) << message;
}

TEST(IoValue, AccessorsAndDictHelpers) {
  IoValue d = IoValue::dict({{"a", 1}, {"b", "two"}});
  d.set("a", 3.0);  // replaces in place
  d.set("c", IoValue());
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d.as_dict()[0].first, "a");
  EXPECT_DOUBLE_EQ(d.at("a").as_double(), 3.0);
  EXPECT_TRUE(d.at("c").is_none());
  EXPECT_EQ(d.find("zz"), nullptr);
  try {
    d.at("zz");
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("'zz'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("'b'"), std::string::npos);
  }
  EXPECT_THROW(d.at("b").as_int(), TypeError);
  EXPECT_THROW(IoValue::dict({{"k", 1}, {"k", 2}}), ValueError);
  EXPECT_DOUBLE_EQ(IoValue(2).as_double(), 2.0);  // an int reads as a float
  EXPECT_FALSE(IoValue(1).equals(IoValue(1.0)));
}
