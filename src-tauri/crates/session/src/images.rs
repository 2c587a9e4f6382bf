//! Which images of tool results go to the model, and in what size.
//!
//! A screenshot the model saw three turns ago costs as much on every later
//! request as on the first, and providers refuse images over their size
//! limit, so: an image is sent only while it is recent (its call answers
//! one of the last [`RECENT_TURNS`] user messages; older ones become a line
//! saying it was sent before); one over the provider's limit is scaled
//! down and re-encoded (PNG or JPEG, with the `image` crate) until it fits;
//! one that cannot be made to fit, or is over [`HARD_MAX_BYTES`] (never
//! decoded), is named in words with why. The person can turn images off
//! per provider and model (`services::providers::set_send_images`).

use std::collections::HashMap;
use std::io::Cursor;
use std::sync::Mutex;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use skald_llm::ImagePart;

/// Images of results answering the last this many user messages are sent.
pub const RECENT_TURNS: usize = 2;

/// An image over this many bytes is not decoded at all: a note says so.
pub const HARD_MAX_BYTES: usize = 32 * 1024 * 1024;

/// Largest decoded image (width × height × 4 bytes) the resizer accepts, so
/// a small file cannot expand into gigabytes.
const MAX_PIXELS_BYTES: u64 = 256 * 1024 * 1024;

/// What the request builder does with images.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImagePolicy {
    /// The provider takes images and the person did not turn them off.
    pub send: bool,
    /// The provider's limit per image, in bytes (before base64).
    pub max_bytes: usize,
}

/// What becomes of one image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fitted {
    /// Send this (the original, or a smaller re-encoding).
    Send(ImagePart),
    /// Too large even after shrinking, or not decodable: the note says why.
    Note(String),
}

fn kb(bytes: usize) -> usize {
    bytes.div_ceil(1024)
}

/// Fits one image under `max_bytes` (see the module docs).
pub fn fit(mime: &str, data_base64: &str, max_bytes: usize) -> Fitted {
    let approx = data_base64.len() / 4 * 3;
    if approx <= max_bytes {
        return Fitted::Send(ImagePart {
            mime: mime.to_string(),
            data_base64: data_base64.to_string(),
        });
    }
    let too_large = |why: &str| {
        Fitted::Note(format!(
            "[image: {mime}, {} KB, not sent to the model: {why}]",
            kb(approx)
        ))
    };
    if approx > HARD_MAX_BYTES {
        return too_large(&format!(
            "over the {} MB that are ever sent",
            HARD_MAX_BYTES / (1024 * 1024)
        ));
    }
    let format = match mime {
        "image/png" => image::ImageFormat::Png,
        "image/jpeg" => image::ImageFormat::Jpeg,
        _ => {
            return too_large(&format!(
                "over the provider's {} KB and its format cannot be shrunk",
                kb(max_bytes)
            ));
        }
    };
    let Ok(bytes) = STANDARD.decode(data_base64) else {
        return too_large("not valid base64");
    };
    match shrink(&bytes, format, max_bytes) {
        Some(part) => Fitted::Send(part),
        None => too_large(&format!(
            "it could not be shrunk under the provider's {} KB",
            kb(max_bytes)
        )),
    }
}

/// Scales the image down until its encoding fits; JPEG for images without
/// transparency (photos, screenshots), PNG otherwise.
fn shrink(bytes: &[u8], format: image::ImageFormat, max_bytes: usize) -> Option<ImagePart> {
    let mut reader = image::ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(MAX_PIXELS_BYTES);
    reader.limits(limits);
    let img = reader.decode().ok()?;
    let alpha = img.color().has_alpha();
    let (w, h) = (img.width().max(1), img.height().max(1));
    // Encoded size grows with the pixel count: start at the scale that
    // should fit and step down until it does.
    let mut scale = ((max_bytes as f64 / bytes.len() as f64).sqrt() * 0.9).min(1.0);
    for _ in 0..6 {
        let nw = ((w as f64 * scale).round() as u32).max(1);
        let nh = ((h as f64 * scale).round() as u32).max(1);
        let small = img.resize(nw, nh, image::imageops::FilterType::Triangle);
        let mut out = Vec::new();
        let (mime, ok) = if alpha {
            let ok = small
                .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
                .is_ok();
            ("image/png", ok)
        } else {
            let enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85);
            (
                "image/jpeg",
                small.to_rgb8().write_with_encoder(enc).is_ok(),
            )
        };
        if ok && out.len() <= max_bytes {
            return Some(ImagePart {
                mime: mime.to_string(),
                data_base64: STANDARD.encode(&out),
            });
        }
        scale *= 0.7;
    }
    None
}

/// Fitted images by call, block and limit: a recent image is sent with
/// every request of its turn, and shrinking it once is enough.
#[derive(Default)]
pub struct FitCache(Mutex<HashMap<(String, usize, usize), Fitted>>);

/// Entries kept before the cache starts over.
const CACHE_ENTRIES: usize = 64;

impl FitCache {
    pub fn fit(
        &self,
        call_id: &str,
        index: usize,
        mime: &str,
        data_base64: &str,
        max_bytes: usize,
    ) -> Fitted {
        let key = (call_id.to_string(), index, max_bytes);
        if let Some(f) = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
        {
            return f.clone();
        }
        let fitted = fit(mime, data_base64, max_bytes);
        let mut map = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if map.len() >= CACHE_ENTRIES {
            map.clear();
        }
        map.insert(key, fitted.clone());
        fitted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> String {
        // Noise, so PNG cannot compress it away.
        let img = image::RgbImage::from_fn(w, h, |x, y| {
            let v = (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)) as u8;
            image::Rgb([v, v.wrapping_mul(3), v.wrapping_add(y as u8)])
        });
        let mut out = Vec::new();
        image::DynamicImage::ImageRgb8(img)
            .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
            .unwrap();
        STANDARD.encode(out)
    }

    #[test]
    fn a_small_image_is_sent_as_it_is() {
        let data = png(8, 8);
        assert_eq!(
            fit("image/png", &data, 1024 * 1024),
            Fitted::Send(ImagePart {
                mime: "image/png".into(),
                data_base64: data
            })
        );
    }

    #[test]
    fn a_large_image_is_shrunk_under_the_limit() {
        let data = png(600, 600);
        let limit = 60 * 1024;
        assert!(data.len() / 4 * 3 > limit);
        let Fitted::Send(part) = fit("image/png", &data, limit) else {
            panic!("not shrunk");
        };
        assert_eq!(part.mime, "image/jpeg");
        let bytes = STANDARD.decode(&part.data_base64).unwrap();
        assert!(bytes.len() <= limit, "{} bytes", bytes.len());
        let img = image::load_from_memory(&bytes).unwrap();
        assert!(img.width() < 600 && img.width() > 0);
        // Same aspect ratio.
        assert_eq!(img.width(), img.height());
    }

    #[test]
    fn what_cannot_fit_is_named_with_why() {
        let data = png(64, 64);
        let Fitted::Note(note) = fit("image/png", &data, 10) else {
            panic!("sent");
        };
        assert!(note.contains("could not be shrunk"), "{note}");
        let Fitted::Note(note) = fit("image/gif", &data, 10) else {
            panic!("sent");
        };
        assert!(note.contains("cannot be shrunk"), "{note}");
        let huge = "A".repeat(HARD_MAX_BYTES / 3 * 4 + 8);
        let Fitted::Note(note) = fit("image/png", &huge, 1024) else {
            panic!("sent");
        };
        assert!(note.contains("over the 32 MB"), "{note}");
    }
}
