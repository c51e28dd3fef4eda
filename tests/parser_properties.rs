//! Property tests: the readers never panic, whatever the bytes, and every record names a real line.

use forkboard::sudoku::format::{Format, ReadOptions, Reader, Record, Splitter};
use forkboard::sudoku::{BoxShape, Symbols};
use proptest::prelude::*;

/// Reads everything, checking what every record must satisfy; returns the number of records.
fn read_all(bytes: &[u8], options: ReadOptions) -> usize {
    let lines = bytes.split(|&b| b == b'\n').count();
    let mut n = 0;
    for rec in Reader::new(bytes, options) {
        n += 1;
        assert!(
            rec.line >= 1 && rec.line <= lines,
            "line {} of {lines}",
            rec.line
        );
        if let Err(e) = &rec.puzzle {
            assert_eq!(e.line, rec.line);
            assert!(!e.to_string().is_empty());
        }
    }
    n
}

fn any_options() -> impl Strategy<Value = ReadOptions> {
    let format = prop_oneof![
        Just(None),
        Just(Some(Format::Line)),
        Just(Some(Format::Block)),
        Just(Some(Format::Grid)),
        Just(Some(Format::Csv)),
    ];
    let symbols = prop_oneof![Just(Symbols::Standard), Just(Symbols::Hex)];
    let shape = prop_oneof![
        Just(None),
        Just(Some(BoxShape::new(3, 4).unwrap())),
        Just(Some(BoxShape::new(2, 2).unwrap()))
    ];
    (format, symbols, shape).prop_map(|(format, symbols, shape)| ReadOptions {
        format,
        symbols,
        shape,
    })
}

/// Text that looks like puzzle files: symbols, empties, separators, CR, tabs, BOMs, NULs and stray bytes.
fn puzzleish() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop_oneof![
        4 => proptest::collection::vec(prop_oneof![Just(b'.'), Just(b'0'), b'1'..=b'9', b'A'..=b'P'], 1..100),
        1 => Just(b"\n".to_vec()),
        1 => Just(b"\r\n".to_vec()),
        1 => Just(b" | ".to_vec()),
        1 => Just(b"------+-------+------\n".to_vec()),
        1 => Just(b"quizzes,solutions\n".to_vec()),
        1 => Just(b"\xEF\xBB\xBF".to_vec()),
        1 => Just(vec![0u8, 0xFF, b'\t', b',', b';', b'#']),
        1 => Just(b"4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n".to_vec()),
        1 => Just(b"400000805\n030000000\n000700000\n".to_vec()),
    ];
    proptest::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4000), options in any_options()) {
        read_all(&bytes, options);
    }

    #[test]
    fn puzzle_like_text_never_panics(bytes in puzzleish(), options in any_options()) {
        read_all(&bytes, options);
    }

    #[test]
    fn pieces_read_exactly_like_the_whole_input(
        bytes in puzzleish(),
        options in any_options(),
        size in 1usize..300,
    ) {
        let whole: Vec<Record> = Reader::new(&bytes[..], options).collect();
        let mut splitter = Splitter::new(&bytes[..], options);
        let pieces: Vec<Record> = std::iter::from_fn(|| splitter.next_piece(size))
            .flat_map(|piece| piece.records(options))
            .collect();
        prop_assert_eq!(splitter.format(), Reader::new(&bytes[..], options).format());
        prop_assert_eq!(pieces, whole);
    }

    #[test]
    fn truncating_a_valid_file_anywhere_never_panics(cut in 0usize..8644) {
        let file = include_bytes!("../../shared/data/sudoku/top95.in");
        let n = read_all(&file[..cut.min(file.len())], ReadOptions::default());
        prop_assert!(n <= 95);
    }

    #[test]
    fn grids_round_trip_through_every_symbol_set(values in proptest::collection::vec(0u8..=16, 256)) {
        for symbols in [Symbols::Standard, Symbols::Hex] {
            let grid = forkboard::sudoku::Grid::new(BoxShape::new(4, 4).unwrap(), &values).unwrap();
            let line = grid.to_line(symbols);
            let options = ReadOptions { symbols, format: Some(Format::Line), ..ReadOptions::default() };
            let back = Reader::new(line.as_bytes(), options).next().unwrap().puzzle.unwrap();
            prop_assert_eq!(back, grid);
        }
    }
}

/// Share-link texts: random strings, and real links with bytes changed, cut or added.
fn linkish() -> impl Strategy<Value = String> {
    let real = prop_oneof![
        Just(
            "3x3-4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
                .to_string()
        ),
        Just("2x2-.2..3.122..3...1".to_string()),
        Just("4x4-".to_string() + &".".repeat(256)),
        Just("5x5-".to_string() + &"A".repeat(625)),
    ];
    prop_oneof![
        ".{0,700}",
        (real, any::<usize>(), ".{0,3}", 0usize..4).prop_map(|(link, at, insert, cut)| {
            let mut chars: Vec<char> = link.chars().collect();
            let at = at % (chars.len() + 1);
            chars.splice(at..(at + cut).min(chars.len()), insert.chars());
            chars.into_iter().collect()
        }),
    ]
}

/// Candidate texts: SudokuWiki strings, N³ strings and pretty candidate grids of a real position, with characters
/// changed, cut or inserted, and random text.
fn candidate_texts() -> impl Strategy<Value = String> {
    use forkboard::sudoku::candidates::Position;
    use forkboard::sudoku::logic::Board;
    let puzzle = forkboard::sudoku::share::decode(
        "3x3-4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
    )
    .unwrap();
    let position = Position::new(puzzle.clone(), Board::new(&puzzle).candidate_masks());
    let real = prop_oneof![
        Just(position.to_sudokuwiki().unwrap()),
        Just(position.to_cube()),
        Just(position.to_pretty()),
    ];
    prop_oneof![
        ".{0,800}",
        "[0-9a-v]{162}",
        (real, any::<usize>(), ".{0,3}", 0usize..4).prop_map(|(text, at, insert, cut)| {
            let mut chars: Vec<char> = text.chars().collect();
            let at = at % (chars.len() + 1);
            chars.splice(at..(at + cut).min(chars.len()), insert.chars());
            chars.into_iter().collect()
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Candidate texts pasted on the Solve page: never a panic; an accepted one writes back (in its form) to a
    /// text that reads as the same position, and every refusal says which form and where.
    #[test]
    fn candidate_texts_never_panic_and_round_trip(text in candidate_texts()) {
        let nine = BoxShape::for_side(9).unwrap();
        match forkboard::sudoku::candidates::read(&text, nine) {
            None => {}
            Some(Ok(position)) => {
                let again = forkboard::sudoku::candidates::read(&position.to_pretty(), position.grid.shape());
                prop_assert_eq!(again, Some(Ok(position)));
            }
            Some(Err(e)) => {
                let why = e.to_string();
                let forms = ["SudokuWiki 162-character string: ", "candidate string: ", "pretty candidate grid: "];
                let names_a_cell = why
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .any(|w| w.starts_with('r') && w[1..].starts_with(|c: char| c.is_ascii_digit()) && w.contains('c'));
                prop_assert!(forms.iter().any(|f| why.starts_with(f)) && names_a_cell, "{}", why);
            }
        }
    }

    /// A link's pencil marks (`m=`): never a panic; accepted marks write back to the same text where their cells
    /// are empty.
    #[test]
    fn link_marks_never_panic(text in "[0-9a-zA-Z]{0,170}") {
        let puzzle = forkboard::sudoku::share::decode(
            "3x3-4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
        )
        .unwrap();
        if let Ok(marks) = forkboard::sudoku::share::decode_marks(&puzzle, &text) {
            let masks: Vec<u32> = marks.iter().map(|m| m.unwrap_or(0)).collect();
            let back = forkboard::sudoku::share::decode_marks(
                &puzzle,
                &forkboard::sudoku::share::encode_marks(&puzzle, &masks),
            );
            prop_assert_eq!(back, Ok(marks));
        }
    }

    /// The decoder of `/?p=` links: never a panic, and a link it accepts encodes back to the same puzzle.
    #[test]
    fn share_links_never_panic_and_round_trip(text in linkish()) {
        if let Ok(grid) = forkboard::sudoku::share::decode(&text) {
            let again = forkboard::sudoku::share::decode(&forkboard::sudoku::share::encode(&grid));
            prop_assert_eq!(again.ok(), Some(grid));
        }
    }

    /// The Queens size field and link parameter: never a panic; accepted values are exactly 1..=32.
    #[test]
    fn queens_sizes_are_accepted_exactly_in_range(text in ".{0,12}|-?[0-9]{1,12}") {
        match forkboard::queens::parse_n(&text) {
            Ok(n) => prop_assert!((1..=32).contains(&n) && text.trim().parse::<u32>() == Ok(n)),
            Err(e) => prop_assert!(e.to_string().starts_with("N must be")),
        }
    }

    /// The workers' Queens requests: any text gets a reply, never a panic. Well-formed requests come with
    /// single digits only, so each is quick to answer; the rest is text whose first word is not `Q`, or `Q`
    /// and words with no digit, which the worker must refuse at once (a count of N = 31, which random text once
    /// made of the numbers in it, takes hours).
    #[test]
    fn queens_worker_requests_never_panic(
        text in "Q( -?[0-9]){0,5}|Q [^0-9]{0,20}|[^Q\\s].{0,39}|\\s{0,3}"
    ) {
        let reply = forkboard::queens::worker_protocol::serve(&text);
        // `Q N` asks for the symmetric counts: `S QUARTER HALF`.
        prop_assert!(reply.starts_with("Q ") || reply.starts_with("S ") || reply.starts_with("E "));
        if !text.starts_with("Q ") || text.bytes().skip(2).all(|b| !b.is_ascii_digit()) {
            prop_assert!(reply.starts_with("E "), "{:?} → {}", text, reply);
        }
    }
}
