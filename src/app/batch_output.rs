//! What a Batch job has written so far: the tallies, the preview, the two outputs (the input's layout and the
//! CSV) handed to the browser as Blobs a few megabytes at a time, and the records kept for the Solve page.

use super::loaded;
use super::workers::{self, PieceReply, SharesReport};
use crate::sudoku::answer::Tally;
use crate::sudoku::format::{
    Answer, Format, GradeColumn, NineAnswer, NinePiece, Record, Writer, write_csv_nines,
    write_nines,
};
use crate::sudoku::piece_protocol::{self, MESSAGES, PREVIEWS, nine_preview_text, preview_text};
use crate::sudoku::symbols::Symbols;

/// Output held in wasm memory before it leaves as a Blob. Each Blob is a round trip to the browser's process:
/// two per slice of 2,000 puzzles (a thousand for a million) took about a sixth of the page's busy time.
const BLOB_BYTES: usize = 4 << 20;

/// A slice answered: its records, their answers (and grades, for a graded CSV), the engine that answered, and
/// how long that took.
pub(super) struct Answered {
    /// The slice's records.
    pub chunk: Vec<Record>,
    /// Their answers, in order.
    pub answers: Vec<Answer>,
    /// Their grade columns (empty unless the CSV is graded).
    pub grades: Vec<Option<GradeColumn>>,
    /// The engine that answered.
    pub engine: String,
    /// Milliseconds the answering took.
    pub ms: f64,
}

/// A piece of plain 9×9 puzzles (lines, blocks or CSV rows) answered on the page's side, where the GPU way does
/// not use the GPU ([`super::engine::search_nines`]): the puzzles, their answers, and the engine that answered.
pub(super) struct AnsweredNines {
    /// The slice's puzzles.
    pub nines: NinePiece,
    /// Their answers, in order.
    pub answers: Vec<NineAnswer>,
    /// The engine that answered.
    pub engine: String,
}

/// What a job has written so far: the tallies, the preview, the two outputs (in memory until a Blob's worth)
/// and the records kept for the Solve page.
pub(super) struct Output {
    pub format: Format,
    pub graded: bool,
    pub tally: Tally,
    pub invalid: Vec<String>,
    pub preview: Vec<(usize, String)>,
    pub kept: Vec<Record>,
    pub engines: Vec<String>,
    /// What the workers reported while answering pieces.
    pub report: SharesReport,
    /// Pieces' parts not yet in a Blob, as views of the workers' replies, and their bytes.
    pub out_views: js_sys::Array,
    pub csv_views: js_sys::Array,
    pub view_bytes: usize,
    /// The buffers behind those views, handed back to the workers once the views are in a Blob.
    pub view_buffers: js_sys::Array,
    pub out: Writer<Vec<u8>>,
    pub csv: Writer<Vec<u8>>,
    pub out_parts: js_sys::Array,
    pub csv_parts: js_sys::Array,
}

impl Output {
    pub fn new(format: Format, graded: bool) -> Self {
        let csv = Writer::new(Vec::new(), Format::Csv, Symbols::Standard);
        Self {
            format,
            graded,
            tally: Tally::default(),
            invalid: Vec::new(),
            preview: Vec::new(),
            kept: Vec::new(),
            engines: Vec::new(),
            report: SharesReport::default(),
            out_views: js_sys::Array::new(),
            csv_views: js_sys::Array::new(),
            view_bytes: 0,
            view_buffers: js_sys::Array::new(),
            out: Writer::new(Vec::new(), format, Symbols::Standard),
            csv: if graded { csv.graded() } else { csv },
            out_parts: js_sys::Array::new(),
            csv_parts: js_sys::Array::new(),
        }
    }

    /// Tallies and writes a piece answered on the workers. Its parts stay views of the worker's reply until a
    /// Blob's worth has gathered; the first one with a record opens each output (the CSV header, no separator
    /// before its first record).
    pub fn write_piece(&mut self, piece: PieceReply) {
        let PieceReply {
            head,
            out,
            csv,
            report,
        } = piece;
        self.report.resent += report.resent;
        self.report.on_page += report.on_page;
        let room = MESSAGES.saturating_sub(self.invalid.len());
        self.invalid.extend(head.messages.into_iter().take(room));
        let room = PREVIEWS.saturating_sub(self.preview.len());
        self.preview.extend(head.previews.into_iter().take(room));
        // Both parts are views of one reply from a worker; the page's own answers have a buffer each.
        let (out_buffer, csv_buffer) = (out.buffer(), csv.buffer());
        self.view_buffers.push(&out_buffer);
        if !js_sys::Object::is(&out_buffer, &csv_buffer) {
            self.view_buffers.push(&csv_buffer);
        }
        if head.tally.puzzles > 0 {
            let opening = self.tally.puzzles == 0;
            for ((part, skip), format, graded, views) in [
                (
                    (out, head.opening_skip[0]),
                    self.format,
                    false,
                    &self.out_views,
                ),
                (
                    (csv, head.opening_skip[1]),
                    Format::Csv,
                    self.graded,
                    &self.csv_views,
                ),
            ] {
                self.view_bytes += part.length() as usize;
                if opening {
                    let opens = piece_protocol::opens_with(format, graded);
                    views.push(&js_sys::Uint8Array::from(opens));
                    views.push(&part.subarray(skip as u32, part.length()));
                } else {
                    views.push(&part);
                }
            }
        }
        self.tally.merge(&head.tally);
        self.hand_over(BLOB_BYTES);
    }

    /// Tallies and writes an answered slice.
    pub fn write(&mut self, answered: Answered) {
        let Answered {
            chunk,
            answers,
            grades,
            engine,
            ..
        } = answered;
        if !self.engines.contains(&engine) {
            self.engines.push(engine);
        }
        for (k, (record, answer)) in chunk.iter().zip(&answers).enumerate() {
            self.tally.add(answer);
            if let Answer::Invalid(e) = answer
                && self.invalid.len() < MESSAGES
            {
                self.invalid.push(e.to_string());
            }
            if self.preview.len() < PREVIEWS {
                self.preview.push((record.line, preview_text(answer)));
            }
            let puzzle = record.puzzle.as_ref().ok();
            // Writing to memory cannot fail.
            let _ = self.out.write(record.line, puzzle, answer);
            let grade = grades.get(k).and_then(Option::as_ref);
            let _ = self.csv.write_graded(record.line, puzzle, answer, grade);
        }
        self.hand_over(BLOB_BYTES);
        let room = loaded::KEEP.saturating_sub(self.kept.len());
        self.kept.extend(chunk.into_iter().take(room));
    }

    /// Tallies and writes an answered slice of plain 9×9 puzzles: its solutions (lines, blocks, grids or CSV
    /// rows) and CSV rows written from the puzzles' and the solutions' values, records made only for the
    /// preview, the messages and the records kept for the Solve page.
    pub fn write_nines(&mut self, answered: AnsweredNines) {
        let AnsweredNines {
            nines,
            answers,
            engine,
        } = answered;
        if !self.engines.contains(&engine) {
            self.engines.push(engine);
        }
        let count = answers.len();
        for (i, answer) in answers.iter().enumerate() {
            if let NineAnswer::Usual(usual) = answer
                && let Answer::Invalid(e) = &usual.1
                && self.invalid.len() < MESSAGES
            {
                self.invalid.push(e.to_string());
            }
            if self.preview.len() >= PREVIEWS {
                continue;
            }
            let text = nine_preview_text(&nines, i, answer);
            self.preview.push((nines.line(i), text));
        }
        let mut csv = Vec::new();
        let tally = write_csv_nines(&nines, &answers, Symbols::Standard, &mut csv);
        // Writing to memory cannot fail. A CSV's rows are both outputs; nines and blocks are written in their
        // layout (with the same tally).
        if self.format == Format::Csv {
            let _ = self.out.append_part(&csv, count);
        } else {
            let mut out = Vec::new();
            write_nines(answers, self.format, Symbols::Standard, &mut out);
            let _ = self.out.append_part(&out, count);
        }
        let _ = self.csv.append_part(&csv, count);
        self.tally.merge(&tally);
        self.hand_over(BLOB_BYTES);
        let room = loaded::KEEP.saturating_sub(self.kept.len());
        self.kept
            .extend((0..count.min(room)).map(|i| nines.record(i)));
    }

    /// Hands each output to the browser as a Blob (which it may keep on disk) once it holds `at_least` bytes
    /// (0: whatever it holds, at the end).
    pub fn hand_over(&mut self, at_least: usize) {
        for (writer, parts) in [
            (&mut self.out, &self.out_parts),
            (&mut self.csv, &self.csv_parts),
        ] {
            if writer.get_mut().len() >= at_least.max(1) {
                parts.push(&bytes_blob(&std::mem::take(writer.get_mut())));
            }
        }
        if self.view_bytes >= at_least.max(1) {
            for (views, parts) in [
                (&mut self.out_views, &self.out_parts),
                (&mut self.csv_views, &self.csv_parts),
            ] {
                parts.push(&blob_of(&std::mem::replace(views, js_sys::Array::new())));
            }
            self.view_bytes = 0;
            // A Blob holds a copy of its parts' bytes, so their buffers are free to be written again.
            workers::recycle(&std::mem::replace(
                &mut self.view_buffers,
                js_sys::Array::new(),
            ));
        }
    }
}

/// A text Blob holding `bytes`, copied once: the Blob is made from a view of the wasm memory where they lie.
/// (They used to be copied into a JS array first, which the Blob then copied again: in a profile of the GPU
/// way on a million easy lines, in Chromium on the H100, 183 ms for the arrays and 209 for the Blobs, of
/// 1.44 s; the page's run then took about 0.1 s less.)
fn bytes_blob(bytes: &[u8]) -> web_sys::Blob {
    // SAFETY: a view of wasm memory is valid until that memory grows. Nothing between making it and making
    // the Blob allocates in wasm memory (the parts' array, the options and their type string live on the JS
    // side), and the Blob constructor copies its parts' bytes before it returns; the view is dropped with it.
    let view = unsafe { js_sys::Uint8Array::view(bytes) };
    blob_of(&js_sys::Array::of1(&view))
}

/// A text Blob of `parts` (Blobs and byte arrays), in order.
fn blob_of(parts: &js_sys::Array) -> web_sys::Blob {
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/plain;charset=utf-8");
    web_sys::Blob::new_with_blob_sequence_and_options(parts, &options)
        .expect("a Blob of Blobs and byte arrays")
}

/// An object URL for downloading the concatenation of `parts` (Blobs) as text.
pub(super) fn object_url(parts: &js_sys::Array) -> String {
    web_sys::Url::create_object_url_with_blob(&blob_of(parts)).unwrap_or_default()
}

/// An object URL for downloading `bytes` as text.
pub(in crate::app) fn blob_url(bytes: Vec<u8>) -> String {
    object_url(&js_sys::Array::of1(&bytes_blob(&bytes)))
}
