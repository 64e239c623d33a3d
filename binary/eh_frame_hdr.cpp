#include "binary/eh_frame_hdr.h"

#include <type_traits>

namespace swprof {
namespace cfi_detail {
namespace {

template <typename T>
std::optional<uint64_t> read_as_u64(ByteReader& r) {
  auto v = r.read<T>();
  if (!v) return std::nullopt;
  // Signed formats sign-extend (two's complement wrap-around is the intent).
  return static_cast<uint64_t>(static_cast<std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>(*v));
}

// The value of the low-nibble format of `encoding`, before it is made relative.
std::optional<uint64_t> read_format(ByteReader& r, uint8_t format) {
  switch (format) {
    case kPeAbsptr: return read_as_u64<uint64_t>(r);  // 64-bit ELF: a pointer is 8 bytes
    case kPeUleb128: return read_uleb128(r);
    case kPeUdata2: return read_as_u64<uint16_t>(r);
    case kPeUdata4: return read_as_u64<uint32_t>(r);
    case kPeUdata8: return read_as_u64<uint64_t>(r);
    case kPeSleb128: {
      auto v = read_sleb128(r);
      if (!v) return std::nullopt;
      return static_cast<uint64_t>(*v);
    }
    case kPeSdata2: return read_as_u64<int16_t>(r);
    case kPeSdata4: return read_as_u64<int32_t>(r);
    case kPeSdata8: return read_as_u64<int64_t>(r);
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<uint64_t> read_encoded_pointer(ByteReader& r, uint8_t encoding, const PointerBase& base) {
  if (encoding == kPeOmit || (encoding & kPeIndirect)) return std::nullopt;
  const uint64_t field_vaddr = base.section_vaddr + r.offset();
  auto raw = read_format(r, encoding & 0x0f);
  if (!raw) return std::nullopt;
  // Relative values wrap modulo 2^64, as the linker computed them.
  switch (encoding & 0x70) {
    case 0x00: return *raw;
    case kPePcrel: return field_vaddr + *raw;
    case kPeDatarel: return base.datarel + *raw;
    default: return std::nullopt;  // textrel, funcrel, aligned: not used on x86-64 Linux
  }
}

std::optional<EhFrameHdrTable> read_eh_frame_hdr_table(Bytes hdr, uint64_t hdr_vaddr) {
  // LSB 5.0 §10.6.2: version, eh_frame_ptr_enc, fde_count_enc, table_enc,
  // eh_frame_ptr, fde_count, then fde_count pairs (initial_location, address),
  // datarel values being relative to the start of .eh_frame_hdr.
  ByteReader r(hdr);
  const PointerBase base{hdr_vaddr, hdr_vaddr};
  auto version = r.read<uint8_t>();
  auto ptr_enc = r.read<uint8_t>();
  auto count_enc = r.read<uint8_t>();
  auto table_enc = r.read<uint8_t>();
  if (!version || *version != 1 || !ptr_enc || !count_enc || !table_enc) return std::nullopt;
  if (*ptr_enc != kPeOmit && !read_encoded_pointer(r, *ptr_enc, base)) return std::nullopt;
  if (*count_enc == kPeOmit || *table_enc == kPeOmit) return std::nullopt;
  auto count = read_encoded_pointer(r, *count_enc, base);
  if (!count) return std::nullopt;
  // Each entry takes at least 2 bytes: a count beyond that is corrupt.
  if (*count > r.remaining() / 2) return std::nullopt;
  return EhFrameHdrTable{hdr_vaddr + r.offset(), r.offset(), *count, *table_enc};
}

std::optional<std::vector<EhFrameHdrEntry>> parse_eh_frame_hdr(Bytes hdr, uint64_t hdr_vaddr) {
  auto table = read_eh_frame_hdr_table(hdr, hdr_vaddr);
  if (!table) return std::nullopt;
  ByteReader r(hdr);
  r.skip(table->offset);
  const PointerBase base{hdr_vaddr, hdr_vaddr};
  std::vector<EhFrameHdrEntry> entries;
  entries.reserve(static_cast<size_t>(table->fde_count));
  for (uint64_t i = 0; i < table->fde_count; ++i) {
    auto location = read_encoded_pointer(r, table->encoding, base);
    auto fde = read_encoded_pointer(r, table->encoding, base);
    if (!location || !fde) return std::nullopt;
    entries.push_back({*location, *fde});
  }
  return entries;
}

}  // namespace cfi_detail

}  // namespace swprof
