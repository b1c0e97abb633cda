//! Compressed sizes: zstd (level 3, the library default) and raw deflate (level 6), each
//! applied to one encoded message on its own, as a sender compressing each message would.

/// Reusable compressors (a zstd context is worth keeping across messages).
pub struct Compressors {
    zstd: zstd::bulk::Compressor<'static>,
    deflate: flate2::Compress,
    deflate_buf: Vec<u8>,
    zstd_buf: Vec<u8>,
}

/// zstd level used for every size figure.
pub const ZSTD_LEVEL: i32 = 3;
/// deflate level used for every size figure.
pub const DEFLATE_LEVEL: u32 = 6;

impl Compressors {
    pub fn new() -> Compressors {
        Compressors {
            zstd: zstd::bulk::Compressor::new(ZSTD_LEVEL).expect("zstd context"),
            // Raw deflate (no zlib header); the state is reset, not reallocated, per message.
            deflate: flate2::Compress::new(flate2::Compression::new(DEFLATE_LEVEL), false),
            deflate_buf: Vec::new(),
            zstd_buf: Vec::new(),
        }
    }

    /// Size of `bytes` as one zstd frame (with its frame header, no dictionary).
    pub fn zstd_len(&mut self, bytes: &[u8]) -> Option<u64> {
        self.zstd_buf.clear();
        self.zstd_buf.reserve(zstd::zstd_safe::compress_bound(bytes.len()));
        self.zstd.compress_to_buffer(bytes, &mut self.zstd_buf).ok().map(|n| n as u64)
    }

    /// Size of `bytes` as a raw deflate stream (RFC 1951, no zlib/gzip header).
    pub fn deflate_len(&mut self, bytes: &[u8]) -> Option<u64> {
        self.deflate.reset();
        self.deflate_buf.clear();
        self.deflate_buf.reserve(bytes.len() + bytes.len() / 8 + 64);
        loop {
            let status = self.deflate.compress_vec(bytes, &mut self.deflate_buf, flate2::FlushCompress::Finish).ok()?;
            if status == flate2::Status::StreamEnd {
                return Some(self.deflate_buf.len() as u64);
            }
            let more = self.deflate_buf.capacity() + 256;
            self.deflate_buf.reserve(more);
        }
    }
}

impl Default for Compressors {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deflate_sizes_are_zlibs() {
        // Expected from zlib itself (Python: zlib.compressobj(6, zlib.DEFLATED, -15)); other
        // deflate implementations give other sizes for the same level (miniz_oxide, zlib-rs).
        let mut c = Compressors::new();
        let line = br#"{"device":"node-1100","seq":0,"ts":1700000000000,"temp":17.0,"hum":80.2,"press":956.31,"batt":3041,"ok":true,"pos":{"lat":-9.091608,"lon":54.57347},"samples":[-286,-404,-1,-471,414,355,-101]}"#;
        assert_eq!(c.deflate_len(line), Some(144));
        let text: String = (0..500u32).map(|i| format!("k{i}:{};", i * i % 977)).collect();
        assert_eq!(text.len(), 4330);
        assert_eq!(c.deflate_len(text.as_bytes()), Some(1952));
    }

    #[test]
    fn compressed_sizes_decompress_back() {
        let mut c = Compressors::new();
        let data = b"abcabcabcabcabcabcabcabcabcabcabcabc".repeat(10);
        let z = c.zstd.compress(&data).unwrap();
        assert_eq!(c.zstd_len(&data), Some(z.len() as u64));
        assert_eq!(zstd::bulk::decompress(&z, data.len()).unwrap(), data);
        assert!(c.zstd_len(&data).unwrap() < data.len() as u64 / 4);
        let d = c.deflate_len(&data).unwrap();
        assert!(d < data.len() as u64 / 4);
        // Same figure as a fresh one-shot encoder, and the state really resets between messages.
        use std::io::Write;
        let mut one = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(DEFLATE_LEVEL));
        one.write_all(&data).unwrap();
        assert_eq!(one.finish().unwrap().len() as u64, d);
        assert_eq!(c.deflate_len(&data).unwrap(), d);
        let mut inflated = Vec::new();
        let mut dec = flate2::write::DeflateDecoder::new(&mut inflated);
        dec.write_all(&c.deflate_buf).unwrap();
        dec.finish().unwrap();
        assert_eq!(inflated, data);
        // Tiny inputs grow: the frame overhead is part of the figure.
        assert!(c.zstd_len(b"a").unwrap() > 1);
    }
}
