//! The `forkboard` binary end to end: layouts mirrored, `--out`, exit codes, messages, standard input.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

/// The binary started with `args`, its standard input and output piped to the test, its errors to `stderr`.
fn spawn(args: &[&str], stderr: Stdio) -> Child {
    Command::new(env!("CARGO_BIN_EXE_forkboard"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("the binary runs")
}

fn forkboard(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = spawn(args, Stdio::piped());
    // Fed from another thread while the output is read: a large input's answers fill the output pipe before
    // the whole input has gone in.
    let mut input = child.stdin.take().unwrap();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            // The binary may stop reading early (an error): what it did not take is not needed.
            let _ = input.write_all(stdin);
        });
        child.wait_with_output().unwrap()
    })
}

fn shared(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/sudoku")
        .join(name)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn block_input_gives_a_sol_file_in_the_same_layout() {
    let dir = std::env::temp_dir().join(format!("forkboard-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("inp.in");
    std::fs::copy(shared("top95.in"), &input).unwrap();
    let out = forkboard(&["solve", input.to_str().unwrap(), "--out", "--stats"], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let sol = std::fs::read_to_string(dir.join("inp.sol")).unwrap();
    let blocks: Vec<&str> = sol.split("\n\n").collect();
    assert_eq!(blocks.len(), 95);
    assert!(blocks.iter().all(|b| b.trim().lines().count() == 9));
    assert!(sol.starts_with("417369825\n632158947\n"));
    let stats = text(&out.stderr);
    assert!(
        stats.contains("puzzles      95") && stats.contains("solved       95"),
        "{stats}"
    );
    // The output verifies.
    let verified = forkboard(&["verify", dir.join("inp.sol").to_str().unwrap()], b"");
    assert!(verified.status.success());
    assert_eq!(
        text(&verified.stdout).trim(),
        "95 grids, 95 valid, 0 invalid"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn bad_puzzles_are_reported_in_place_and_the_rest_solved() {
    let input = b"4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n\
                  44...............................................................................\n\
                  short\n\
                  123............4\n\
                  ................\n";
    let out = forkboard(&["solve", "--count", "2", "--stats"], input);
    assert_eq!(out.status.code(), Some(1), "some puzzles failed");
    let lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    assert_eq!(lines.len(), 5, "one record per puzzle");
    assert_eq!(
        lines[0],
        "417369825632158947958724316825437169791586432346912758289643571573291684164875293 1"
    );
    assert!(
        lines[1].starts_with("# line 2: contradictory givens: two 4s in row 1 (r1c1, r1c2)"),
        "{}",
        lines[1]
    );
    assert!(lines[2].starts_with("# line 3: 5 cells is not a supported size"));
    assert_eq!(lines[3], "# line 4: no solution");
    assert!(lines[4].ends_with(" 2+"));
    let stats = text(&out.stderr);
    for want in [
        "puzzles      5",
        "solved       2",
        "unique       1",
        "multiple     1",
        "no solution  1",
        "invalid      2",
    ] {
        assert!(stats.contains(want), "{want} in {stats}");
    }
}

#[test]
fn all_good_exits_zero_and_missing_files_exit_two() {
    assert!(
        forkboard(&["solve"], b"1...............\n")
            .status
            .success()
    );
    let missing = forkboard(&["solve", "/no/such/file.txt"], b"");
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("cannot open /no/such/file.txt"));
    let bad_box = forkboard(&["solve", "--box", "1x9"], b"");
    assert_eq!(bad_box.status.code(), Some(2));
    assert!(text(&bad_box.stderr).contains("side of 1"));
}

#[test]
fn explicit_box_shapes_and_hex_symbols() {
    let twelve = ".".repeat(144) + "\n";
    let out = forkboard(&["solve", "--box", "4x3"], twelve.as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim().len(), 144);
    let hex = ".".repeat(256) + "\n";
    let out = forkboard(&["solve", "--symbols", "hex"], hex.as_bytes());
    let solved = text(&out.stdout);
    assert!(
        solved.contains('0') && solved.contains('F') && !solved.contains('G'),
        "{solved}"
    );
}

#[test]
fn verify_names_conflicts_and_empty_cells() {
    let out = forkboard(&["verify"], b"1234341221434322\n12343412214343.1\n");
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    assert!(report.contains("line 1: two 2s in row 4"), "{report}");
    assert!(
        report.contains("line 2: 1 empty cell (the first at r4c3)"),
        "{report}"
    );
    assert!(report.contains("2 grids, 0 valid, 2 invalid"));
}

#[test]
fn the_gpu_engine_gives_the_cpu_engines_output() {
    let input = std::fs::read(shared("top95.txt")).unwrap();
    let cpu = forkboard(&["solve", "--engine", "cpu", "--count", "2"], &input);
    let gpu = forkboard(
        &["solve", "--engine", "gpu", "--count", "2", "--stats"],
        &input,
    );
    assert!(gpu.status.success(), "{}", text(&gpu.stderr));
    assert_eq!(text(&cpu.stdout), text(&gpu.stdout));
    let stats = text(&gpu.stderr);
    assert!(
        stats.contains("engine       gpu ") && stats.contains("(Vulkan)"),
        "{stats}"
    );
}

#[test]
fn plain_nine_by_nine_lines_on_the_gpu_are_answered_as_the_cpu_answers_them() {
    // Plain lines go to the GPU straight from the text, without records; a piece with anything else in it goes
    // the usual way, and a puzzle of a plain piece without a checked solution is answered as a record. 3,000
    // kaggle puzzles in chunks of 500 (pieces of about 200 lines), among them givens that clash, a puzzle with
    // no solution, a forum puzzle the kernel must search, and, in some pieces only, a comment, a blank line,
    // a letter, a line with a count after it and CRLF line ends.
    let input = plain_test_input();
    for mode in [&[][..], &["--count", "2"][..]] {
        let cpu = gpu_answers_as_cpu_does(&input, &spaced(&input), mode, 3002);
        assert_eq!(cpu.lines().count(), 3002, "{mode:?}");
        // Lost mid-run: the chunk in flight and the rest on the CPU, nothing lost.
        let lost = [&GPU_ARGS[..], mode, &["--lose-gpu-after", "3"]].concat();
        let lost = forkboard(&lost, input.as_bytes());
        assert_eq!(lost.status.code(), Some(1), "{}", text(&lost.stderr));
        assert!(text(&lost.stderr).contains("the GPU failed"));
        assert_eq!(text(&lost.stdout), cpu, "{mode:?}, lost");
    }
}

/// The 3,000 puzzles of [`plain_test_puzzles`] as lines, with a comment, a blank line, a letter and a line with
/// a count after it among them (3,002 records).
fn plain_test_input() -> String {
    let mut input = String::new();
    for (i, (line, quiz, end)) in plain_test_puzzles().into_iter().enumerate() {
        input.push_str(&line);
        input.push_str(end);
        match i {
            700 => input.push_str("# a comment\n"),
            1500 => input.push('\n'),
            2100 => input.push_str(&format!("{}A\n", &quiz[..80])),
            2500 => input.push_str(&format!("{quiz} 1\n")),
            _ => {}
        }
    }
    input
}

#[test]
fn several_gpus_share_a_file_and_write_it_in_input_order() {
    // Two devices on the one software adapter stand for two GPUs: chunks of 300 go to whichever is free and
    // may come back out of order; the output is the CPU's, in input order. One GPU lost mid-run answers its
    // chunk in flight on the CPU and leaves the rest to the other.
    let input = plain_test_input();
    for mode in [&[][..], &["--count", "2"][..]] {
        let cpu = forkboard(
            &[&["solve", "--engine", "cpu"][..], mode].concat(),
            input.as_bytes(),
        );
        let args = [
            &[
                "solve", "--engine", "gpu", "--gpus", "0,0", "--chunk", "300", "--stats",
            ][..],
            mode,
        ]
        .concat();
        let two = forkboard(&args, input.as_bytes());
        let stats = text(&two.stderr);
        assert_eq!(two.status.code(), Some(1), "{stats}");
        assert_eq!(text(&two.stdout), text(&cpu.stdout), "{mode:?}");
        assert!(stats.contains("2 gpus — 3002 puzzles"), "{stats}");
        let each: Vec<u64> = stats
            .split(" puzzles, ")
            .filter_map(|s| s.rsplit('(').next()?.parse().ok())
            .collect();
        assert!(
            each.len() == 2 && each.iter().all(|&p| p > 0) && each.iter().sum::<u64>() == 3002,
            "both GPUs took chunks: {each:?} in {stats}"
        );

        let lost = forkboard(
            &[&args[..], &["--lose-gpu-after", "3"]].concat(),
            input.as_bytes(),
        );
        let stats = text(&lost.stderr);
        assert_eq!(lost.status.code(), Some(1), "{stats}");
        assert_eq!(text(&lost.stdout), text(&cpu.stdout), "{mode:?}, one lost");
        assert!(
            stats.contains("failed mid-run") && stats.contains("the other GPUs finished"),
            "{stats}"
        );
    }
}

/// The 3,000 puzzles of the plain-input tests, each with the kaggle puzzle it stands for and the line end it is
/// written with: kaggle's, and every 101st puzzle on, clashing givens, a puzzle without a solution and a forum
/// puzzle the kernel must search; CRLF for the 1,000th to the 1,499th.
fn plain_test_puzzles() -> Vec<(String, String, &'static str)> {
    let no_solution = format!("12345678.........9{}", ".".repeat(63));
    let hard = std::fs::read_to_string(shared("forum_hardest_11plus.txt")).unwrap();
    let hard: Vec<&str> = hard.lines().filter(|l| l.len() == 81).take(20).collect();
    let kaggle = std::fs::read_to_string(shared("kaggle_10k.csv")).unwrap();
    let quizzes = kaggle.lines().skip(1).take(3000);
    quizzes
        .map(|row| row.split(',').next().unwrap())
        .enumerate()
        .map(|(i, quiz)| {
            let puzzle = match i % 101 {
                3 => format!("55{}", &quiz[2..]),
                4 => no_solution.clone(),
                5 => hard[i / 101 % hard.len()].to_string(),
                _ => quiz.to_string(),
            };
            let end = if (1000..1500).contains(&i) {
                "\r\n"
            } else {
                "\n"
            };
            (puzzle, quiz.to_string(), end)
        })
        .collect()
}

/// The GPU's arguments for the plain-lines tests: chunks of 500, so that a file of thousands is several.
const GPU_ARGS: [&str; 6] = ["solve", "--engine", "gpu", "--chunk", "500", "--stats"];

/// Solves `usual` on the CPU, every piece of which holds something that sends it the usual way (through
/// records), then `input`, the same puzzles mostly plain, on the CPU and on the GPU with `mode`'s arguments;
/// asserts that all three exit with status 1 (some puzzles have no solution) and write the same output, and
/// that the GPU answered all `puzzles`; returns the output.
fn gpu_answers_as_cpu_does(input: &str, usual: &str, mode: &[&str], puzzles: usize) -> String {
    let cpu_args = [&["solve", "--engine", "cpu"][..], mode].concat();
    let expected = forkboard(&cpu_args, usual.as_bytes());
    assert_eq!(
        expected.status.code(),
        Some(1),
        "{}",
        text(&expected.stderr)
    );
    let cpu = forkboard(&cpu_args, input.as_bytes());
    assert_eq!(cpu.status.code(), Some(1), "{}", text(&cpu.stderr));
    assert_eq!(text(&cpu.stdout), text(&expected.stdout), "CPU {mode:?}");
    let gpu = forkboard(&[&GPU_ARGS[..], mode].concat(), input.as_bytes());
    let stats = text(&gpu.stderr);
    assert_eq!(gpu.status.code(), Some(1), "{stats}");
    assert_eq!(text(&gpu.stdout), text(&expected.stdout), "GPU {mode:?}");
    assert!(
        stats.contains(&format!("puzzles      {puzzles}\n")),
        "{stats}"
    );
    assert!(
        stats.contains(&format!("— {puzzles} puzzles")),
        "every puzzle on the GPU: {stats}"
    );
    text(&expected.stdout)
}

/// `text` with a space before every line end: the same records, but no piece of it plain.
fn spaced(text: &str) -> String {
    text.replace("\r\n", "\u{1}")
        .replace('\n', " \n")
        .replace('\u{1}', " \r\n")
}

#[test]
fn a_csv_of_puzzles_and_solutions_on_the_gpu_is_answered_as_the_cpu_answers_it() {
    // Kaggle's layout, `quizzes,solutions`: its plain rows go to the GPU straight from the text too. 3,000 rows in
    // chunks of 500, with clashing givens, a puzzle without a solution, a row whose solution is missing and one
    // with a letter (those pieces go the usual way), counted and not.
    let no_solution = format!("12345678.........9{}", ".".repeat(63));
    let kaggle = std::fs::read_to_string(shared("kaggle_10k.csv")).unwrap();
    let mut input = String::from("quizzes,solutions\n");
    for (i, row) in kaggle.lines().skip(1).take(3000).enumerate() {
        let (quiz, solution) = row.split_once(',').unwrap();
        let row = match i % 211 {
            3 => format!("55{},{solution}", &quiz[2..]),
            4 => format!("{no_solution},{solution}"),
            _ => row.to_string(),
        };
        input.push_str(&row);
        input.push('\n');
        match i {
            900 => input.push_str(&format!("{quiz},\n")),
            2200 => input.push_str(&format!("{}A,{solution}\n", &quiz[..80])),
            _ => {}
        }
    }
    // The same rows with a third column: read as the same records, but the usual way.
    let usual: String = input
        .lines()
        .enumerate()
        .map(|(i, row)| match i {
            0 => "quizzes,solutions,source\n".to_string(),
            _ => format!("{row},kaggle\n"),
        })
        .collect();
    for mode in [&[][..], &["--count", "2"][..]] {
        let out = gpu_answers_as_cpu_does(&input, &usual, mode, 3002);
        assert_eq!(out.lines().count(), 3003, "a header and 3,002 rows");
    }
}

#[test]
fn plain_nine_by_nine_blocks_are_answered_as_the_usual_way_answers_them() {
    // Blocks of nine rows, a blank line after each, go from the text to either engine as plain lines do. 3,000
    // kaggle puzzles in chunks of 500, among them givens that clash, a puzzle with no solution and forum puzzles,
    // and in some pieces only a comment, a second blank line, a letter and CRLF line ends; the last block has no
    // blank line after it.
    let mut input = String::new();
    for (i, (puzzle, quiz, end)) in plain_test_puzzles().into_iter().enumerate() {
        for r in 0..9 {
            input.push_str(&puzzle[r * 9..r * 9 + 9]);
            input.push_str(end);
        }
        if i < 2999 {
            input.push_str(end);
        }
        match i {
            700 => input.push_str("# a comment\n"),
            1500 => input.push('\n'),
            2100 => {
                let letter = format!("{}A{}", &quiz[..8], &quiz[9..]);
                for r in 0..9 {
                    input.push_str(&letter[r * 9..r * 9 + 9]);
                    input.push('\n');
                }
                input.push('\n');
            }
            _ => {}
        }
    }
    let usual = spaced(&input);
    for mode in [&[][..], &["--count", "2"][..]] {
        let out = gpu_answers_as_cpu_does(&input, &usual, mode, 3001);
        assert!(out.contains("# line 31: contradictory givens"), "{mode:?}");
        // Lost mid-run: the chunk in flight and the rest on the CPU, nothing lost.
        let lost = [&GPU_ARGS[..], mode, &["--lose-gpu-after", "3"]].concat();
        let lost = forkboard(&lost, input.as_bytes());
        assert_eq!(lost.status.code(), Some(1), "{}", text(&lost.stderr));
        assert_eq!(text(&lost.stdout), out, "{mode:?}, lost");
    }
}

#[test]
fn plain_pretty_grids_are_answered_as_the_usual_way_answers_them() {
    // Pretty grids as this program writes them, a blank line after each, go from the text to either engine as
    // plain lines do: the blocks' 3,000 puzzles and pieces (clashing givens, no solution, forum puzzles, a
    // comment, a second blank line, a letter, CRLF), and some rows ending in a space. The usual way's copy has
    // `:` between boxes, which reads the same but is not plain.
    let mut input = String::new();
    for (i, (puzzle, quiz, end)) in plain_test_puzzles().into_iter().enumerate() {
        let end = if (2500..2600).contains(&i) {
            " \n"
        } else {
            end
        };
        input.push_str(&pretty(&puzzle).replace('\n', end));
        if i < 2999 {
            input.push_str(end.strip_prefix(' ').unwrap_or(end));
        }
        match i {
            700 => input.push_str("# a comment\n"),
            1500 => input.push('\n'),
            2100 => {
                let letter = format!("{}A{}", &quiz[..8], &quiz[9..]);
                input.push_str(&pretty(&letter));
                input.push('\n');
            }
            _ => {}
        }
    }
    let usual = input.replace(" | ", " : ");
    assert_ne!(usual, input);
    for mode in [&[][..], &["--count", "2"][..]] {
        let out = gpu_answers_as_cpu_does(&input, &usual, mode, 3001);
        assert!(out.contains("# line 37: contradictory givens"), "{mode:?}");
        let lost = [&GPU_ARGS[..], mode, &["--lose-gpu-after", "3"]].concat();
        let lost = forkboard(&lost, input.as_bytes());
        assert_eq!(lost.status.code(), Some(1), "{}", text(&lost.stderr));
        assert_eq!(text(&lost.stdout), out, "{mode:?}, lost");
    }
}

#[test]
fn puzzles_that_come_one_by_one_are_answered_as_they_come() {
    // A terminal or a slow producer: each puzzle is answered before the next is sent, standard input still
    // open, on each engine (lines decide the layout at once; a pretty grid as soon as its first row is seen).
    let hard = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";
    let solved =
        "417369825632158947958724316825437169791586432346912758289643571573291684164875293";
    let pretty_grid = "4 . . | . . . | 8 . 5\n. 3 . | . . . | . . .\n. . . | 7 . . | . . .\n\
                       ------+-------+------\n. 2 . | . . . | . 6 .\n. . . | . 8 . | 4 . .\n\
                       . . . | . 1 . | . . .\n------+-------+------\n. . . | 6 . 3 | . 7 .\n\
                       5 . . | 2 . . | . . .\n1 . 4 | . . . | . . .\n";
    let cases = [
        ("cpu", format!("{hard}\n"), solved.to_string()),
        ("gpu", format!("{hard}\n"), solved.to_string()),
        (
            "cpu",
            pretty_grid.to_string(),
            "4 1 7 | 3 6 9 | 8 2 5".to_string(),
        ),
    ];
    for (engine, puzzle, first_line) in cases {
        let mut child = spawn(&["solve", "-", "--engine", engine], Stdio::null());
        let mut stdin = child.stdin.take().unwrap();
        let (lines_tx, lines) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        let reading = std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                if lines_tx.send(line.unwrap()).is_err() {
                    return;
                }
            }
        });
        let patience = std::time::Duration::from_secs(60);
        for round in 0..2 {
            stdin.write_all(puzzle.as_bytes()).unwrap();
            stdin.flush().unwrap();
            // (Pretty grids are written a blank line apart.)
            let line = std::iter::from_fn(|| lines.recv_timeout(patience).ok())
                .find(|line| !line.is_empty())
                .unwrap_or_else(|| {
                    panic!("{engine}: no answer to puzzle {round} while the input stays open")
                });
            assert_eq!(line, first_line, "{engine}, puzzle {round}");
            // The rest of a pretty grid's answer, before the next puzzle.
            for _ in 1..puzzle.lines().count() {
                lines.recv_timeout(patience).unwrap();
            }
        }
        drop(stdin);
        assert!(child.wait().unwrap().success(), "{engine}");
        reading.join().unwrap();
    }
}

#[test]
fn an_output_nobody_reads_holds_the_gpu_stages_back() {
    // 60 MB of puzzles on standard input, the output never read: the stages must stop taking input once their
    // bounded buffers are full, not answer everything into memory. (Before the format stage waited for the
    // writer, all of it was taken within a couple of seconds.)
    let quiz = std::fs::read_to_string(shared("kaggle_10k.csv")).unwrap();
    let quiz = quiz
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .to_string();
    let block = format!("{quiz}\n").repeat(10_000).into_bytes();
    let total = 75 * block.len();
    let mut child = spawn(
        &["solve", "-", "--engine", "gpu", "--chunk", "500"],
        Stdio::null(),
    );
    let mut stdin = child.stdin.take().unwrap();
    let taken = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&taken);
    let feeding = std::thread::spawn(move || {
        for _ in 0..75 {
            if stdin.write_all(&block).is_err() {
                return;
            }
            counter.fetch_add(block.len(), std::sync::atomic::Ordering::Relaxed);
        }
    });
    std::thread::sleep(std::time::Duration::from_secs(10));
    let fed = taken.load(std::sync::atomic::Ordering::Relaxed);
    child.kill().unwrap();
    child.wait().unwrap();
    feeding.join().unwrap();
    assert!(
        fed < total / 2,
        "{fed} of {total} bytes taken while the output was not read"
    );
    assert!(fed > 0);
}

#[test]
fn a_gpu_lost_mid_run_is_finished_on_the_cpu_with_nothing_lost() {
    // 1,200 kaggle puzzles in chunks of 200: the first chunks go to the GPU, then its device is destroyed (the
    // hidden fault hook, counting submissions: the kernels' warm-up takes two, and every small batch two on
    // lavapipe, one on a large GPU, which answers 200 easy puzzles in its first; so the fifth falls in the second
    // chunk or the third); the chunk in flight and the rest are answered on the CPU, each puzzle once, in order.
    let input: String = std::fs::read_to_string(shared("kaggle_10k.csv"))
        .unwrap()
        .lines()
        .take(1201)
        .map(|l| format!("{l}\n"))
        .collect();
    let cpu = forkboard(&["solve", "--engine", "cpu"], input.as_bytes());
    let lost = forkboard(
        &[
            "solve",
            "--engine",
            "gpu",
            "--chunk",
            "200",
            "--lose-gpu-after",
            "5",
            "--stats",
        ],
        input.as_bytes(),
    );
    let stderr = text(&lost.stderr);
    assert!(lost.status.success(), "{stderr}");
    assert_eq!(text(&cpu.stdout), text(&lost.stdout));
    assert_eq!(
        text(&lost.stdout).lines().count(),
        1201,
        "a header and 1,200 rows"
    );
    assert!(
        stderr.contains("the GPU failed (the GPU device was lost"),
        "{stderr}"
    );
    // Both engines answered part of the file.
    let gpu_part = stderr
        .split("gpu ")
        .nth(1)
        .and_then(|s| s.split(" — ").nth(1))
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("a GPU share in {stderr}"));
    assert!((200..1200).contains(&gpu_part), "{stderr}");
    assert!(stderr.contains("puzzles      1200"), "{stderr}");
}

#[test]
fn a_search_too_big_to_finish_gives_up_with_a_message_and_the_rest_are_solved() {
    // An empty 16×16 needs ~180 guesses to its first solution: a budget of 10 stops it; the 9×9 after it is
    // still solved, and the exit status says not everything was.
    let input = format!(
        "{}\n4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n",
        ".".repeat(256)
    );
    let out = forkboard(
        &["solve", "--engine", "cpu", "--max-guesses", "10", "--stats"],
        input.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("# line 1: gave up after 10 guesses without a solution"),
        "{stdout}"
    );
    assert!(lines[1].starts_with("417369825632158947"), "{stdout}");
    assert!(text(&out.stderr).contains("gave up      1"));
    // Without the budget the same file is solved.
    let out = forkboard(
        &["solve", "--engine", "cpu", "--max-guesses", "0"],
        input.as_bytes(),
    );
    assert!(out.status.success());
}

#[test]
fn auto_says_which_engine_ran_and_why() {
    let out = forkboard(&["solve", "--stats"], b"1...............\n");
    assert!(out.status.success());
    let stats = text(&out.stderr);
    // Lavapipe is a software adapter: auto keeps to the CPU and says so. On a real GPU, a one-puzzle chunk is
    // still too small to be worth a dispatch.
    assert!(stats.contains("engine       cpu"), "{stats}");
}

#[test]
fn queens_prints_counts_that_match_the_published_ones() {
    let out = forkboard(&["queens", "--range", "1..10", "--engine", "cpu"], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let rows: Vec<Vec<&str>> = table
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 10);
    assert_eq!(&rows[7][..3], ["8", "92", "12"]);
    assert_eq!(&rows[9][..3], ["10", "724", "92"]);
    assert!(rows.iter().all(|r| r[4] == "matches"), "{table}");

    let gpu = forkboard(&["queens", "11", "--engine", "gpu"], b"");
    assert!(gpu.status.success(), "{}", text(&gpu.stderr));
    let row = text(&gpu.stdout);
    assert!(
        row.contains("2680") && row.contains(" 341 ") && row.contains("gpu "),
        "{row}"
    );
}

#[test]
fn queens_shards_print_json_lines_that_add_up() {
    for engine in ["cpu", "gpu"] {
        let (mut total, mut unique, mut seen) = (0, 0, Vec::new());
        for index in 1..=4 {
            let shard = format!("{index}/4");
            let out = forkboard(
                &[
                    "queens", "--range", "11..12", "--engine", engine, "--shard", &shard,
                ],
                b"",
            );
            assert!(out.status.success(), "{}", text(&out.stderr));
            for line in text(&out.stdout).lines().filter(|l| l.starts_with('{')) {
                let json: serde_json::Value = serde_json::from_str(line).unwrap();
                assert_eq!(json["shard"], shard.as_str(), "{line}");
                if json["n"] == 12 {
                    total += json["total"].as_u64().unwrap();
                    unique += json["unique"].as_u64().unwrap();
                }
                seen.push(json["n"].as_u64().unwrap());
            }
        }
        assert_eq!((total, unique), (14200, 1787), "{engine}");
        assert_eq!(seen.len(), 8, "{engine}: one line per N and shard");
    }
    let bad = forkboard(&["queens", "8", "--shard", "5/4"], b"");
    assert!(!bad.status.success() && text(&bad.stderr).contains("K/M"));
}

#[test]
fn a_queens_count_whose_gpu_is_lost_is_finished_by_the_other_gpu_or_the_cpu() {
    // The first GPU is lost after its first submission: with two devices on the software adapter the other
    // counts the runs it took; with one, the CPU counts the board (under `--engine gpu` too). Either way the
    // counts are the published ones.
    for gpus in [&["--gpus", "0,0"][..], &[][..]] {
        let args = [
            &["queens", "12", "--engine", "gpu", "--lose-gpu-after", "1"][..],
            gpus,
        ]
        .concat();
        let out = forkboard(&args, b"");
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{gpus:?}: {stderr}");
        let row = stdout.lines().last().unwrap_or_default();
        assert!(
            row.contains(" 14200 ") && row.contains(" 1787 ") && row.contains("matches"),
            "{row}"
        );
        if gpus.is_empty() {
            assert!(
                row.contains("cpu (") && stderr.contains("the GPU failed"),
                "{row}\n{stderr}"
            );
        } else {
            assert!(row.contains("2 gpus") && row.contains("failed: "), "{row}");
        }
    }
}

#[test]
fn queens_auto_looks_for_a_gpu_only_for_boards_it_would_count_sooner() {
    // Below N = 17 every core is through before a GPU is set up: none is looked for, and the note says so.
    let small = forkboard(&["queens", "--range", "8..10"], b"");
    assert!(small.status.success(), "{}", text(&small.stderr));
    assert!(
        text(&small.stderr).contains("so none was looked for"),
        "{}",
        text(&small.stderr)
    );
    assert!(
        text(&small.stdout)
            .lines()
            .skip(1)
            .all(|l| l.contains("cpu ("))
    );
    // N = 17 (a shard of it, to keep the test short) looks for one: lavapipe is passed over as a software
    // adapter; a hardware GPU counts it.
    let large = forkboard(&["queens", "17", "--shard", "1/64"], b"");
    let (stdout, stderr) = (text(&large.stdout), text(&large.stderr));
    assert!(large.status.success(), "{stderr}");
    let row = stdout
        .lines()
        .find(|l| l.starts_with("17 "))
        .unwrap_or_default();
    assert!(
        (stderr.contains("is a software one") && row.contains("cpu ("))
            || (row.contains("gpu ") && !stderr.contains("none was looked for")),
        "{row}\n{stderr}"
    );
}

#[test]
fn queens_refuses_bad_sizes_clearly() {
    for (args, message) in [
        (vec!["queens", "0"], "N must be between 1 and 32, not 0"),
        (vec!["queens", "33"], "N must be between 1 and 32, not 33"),
        (vec!["queens", "eight"], "whole number"),
        (vec!["queens", "--range", "9..3"], "empty"),
        (vec!["queens"], "give a board size"),
    ] {
        let out = forkboard(&args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(message),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn bench_compares_the_engines_and_writes_csv_and_charts() {
    let out = std::env::temp_dir().join(format!("forkboard-bench-{}", std::process::id()));
    let data = shared("top95.txt");
    let run = forkboard(
        &[
            "bench",
            "--data",
            data.parent().unwrap().to_str().unwrap(),
            "--sets",
            "top95.txt",
            "--sizes",
            "1,10",
            "--queens",
            "7..9",
            "--out",
            out.to_str().unwrap(),
        ],
        b"",
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let table = text(&run.stdout);
    assert!(table.contains("# GPU: "), "{table}");
    let csv = std::fs::read_to_string(out.join("compare.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    // Two batch sizes and three N, each on both engines, every pair agreeing.
    assert_eq!(rows.len(), 2 * 2 + 3 * 2, "{csv}");
    assert!(rows.iter().all(|r| r.ends_with(",agree")), "{csv}");
    for engine in ["cpu", "gpu"] {
        let prefix = format!("queens,N,8,{engine},");
        assert!(rows.iter().any(|r| r.starts_with(&prefix)), "{csv}");
    }
    for chart in ["sudoku-top95.svg", "queens.svg"] {
        let svg = std::fs::read_to_string(out.join(chart)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("<path"), "{chart}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_large_input_cut_into_pieces_on_every_core_is_answered_as_read_in_one_place() {
    use forkboard::sudoku::answer::{Mode, answer};
    use forkboard::sudoku::format::{Format, ReadOptions, Reader, Writer};
    use forkboard::sudoku::{Solver, Symbols};
    // 10,000 kaggle puzzles (about 80 pieces on the CPU path), with bad records, comments and blank lines among
    // them, in every layout; four threads, so that pieces finish out of order.
    let lines: Vec<String> = std::fs::read_to_string(shared("kaggle_10k.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .enumerate()
        .map(|(i, l)| {
            let quiz = l.split(',').next().unwrap();
            match i % 997 {
                5 => format!("{}x", &quiz[..80]),
                6 => format!("11{}", &quiz[2..]),
                _ => quiz.to_string(),
            }
        })
        .collect();
    let block = |quiz: &str| {
        quiz.as_bytes()
            .chunks(9)
            .map(|r| text(r) + "\n")
            .collect::<String>()
    };
    let layouts = [
        (
            "line",
            lines
                .iter()
                .map(|l| format!("{l}\n# note\n"))
                .collect::<String>(),
        ),
        (
            "csv",
            format!(
                "quizzes\n{}",
                lines.iter().map(|l| format!("{l}\n")).collect::<String>()
            ),
        ),
        ("block", lines.iter().map(|l| block(l) + "\n").collect()),
        (
            "grid",
            lines.iter().take(2000).map(|l| pretty(l) + "\n").collect(),
        ),
    ];
    for (name, input) in layouts {
        let format: Format = name.parse().unwrap();
        let options = ReadOptions {
            format: Some(format),
            ..ReadOptions::default()
        };
        let mut expect = Writer::new(Vec::new(), format, Symbols::Standard);
        let mut solver = Solver::new();
        for record in Reader::new(input.as_bytes(), options) {
            let answer = answer(&record, &mut solver, Mode::Count(2));
            expect
                .write(record.line, record.puzzle.as_ref().ok(), &answer)
                .unwrap();
        }
        let expect = text(&expect.finish().unwrap());
        let args = [
            "solve",
            "--engine",
            "cpu",
            "--threads",
            "4",
            "--count",
            "2",
            "--format",
            name,
        ];
        let out = forkboard(&args, input.as_bytes());
        assert_eq!(text(&out.stdout), expect, "{name}");
        assert!(expect.lines().count() >= 2000, "{name}");
    }
}

/// A 9×9 one-line puzzle as a pretty grid, with rules between bands and bars between boxes.
fn pretty(quiz: &str) -> String {
    let mut grid = String::new();
    for (r, row) in quiz.as_bytes().chunks(9).enumerate() {
        if r == 3 || r == 6 {
            grid.push_str("------+-------+------\n");
        }
        let cells: Vec<String> = row.iter().map(|&b| char::from(b).to_string()).collect();
        let boxes: Vec<String> = cells.chunks(3).map(|c| c.join(" ")).collect();
        grid.push_str(&boxes.join(" | "));
        grid.push('\n');
    }
    grid
}

#[test]
fn sharded_solves_concatenate_to_the_whole_output_in_every_layout() {
    // 100,000 kaggle lines (the 10,000 ten times) with bad records, comments and blank lines among them;
    // fewer in the slower layouts. Shards of each are solved apart and put end to end.
    let dir = std::env::temp_dir().join(format!("forkboard-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let quizzes: Vec<String> = std::fs::read_to_string(shared("kaggle_10k.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    let lines: Vec<String> = (0..100_000)
        .map(|i| {
            let quiz = &quizzes[i % quizzes.len()];
            match i % 997 {
                5 => format!("{}x", &quiz[..80]),
                6 => format!("11{}", &quiz[2..]),
                7 => format!("# a comment\n\n{quiz}"),
                _ => quiz.clone(),
            }
        })
        .collect();
    let block = |quiz: &str| {
        quiz.lines()
            .last()
            .unwrap()
            .as_bytes()
            .chunks(9)
            .map(|r| text(r) + "\n")
            .collect::<String>()
    };
    let layouts = [
        (
            "line",
            lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
        ),
        (
            "csv",
            format!(
                "quizzes\n{}",
                lines[..30_000]
                    .iter()
                    .map(|l| format!("{}\n", l.lines().last().unwrap()))
                    .collect::<String>()
            ),
        ),
        (
            "block",
            lines[..20_000].iter().map(|l| block(l) + "\n").collect(),
        ),
        (
            "grid",
            lines[..2_000]
                .iter()
                .map(|l| pretty(l.lines().last().unwrap()) + "\n")
                .collect(),
        ),
        // Fewer puzzles than shards: most shards are empty, and the first with a puzzle is not shard 1.
        (
            "tiny",
            format!("\n\n\n\n\n\n\n\n\n\n{}\n{}\n", quizzes[0], quizzes[1]),
        ),
    ];
    for (name, input) in layouts {
        let path = dir.join(format!("{name}.txt"));
        std::fs::write(&path, &input).unwrap();
        let solve = |extra: &[&str]| {
            let mut args = vec![
                "solve",
                path.to_str().unwrap(),
                "--engine",
                "cpu",
                "--count",
                "2",
            ];
            if name != "tiny" {
                args.extend(["--format", name]);
            }
            args.extend(extra);
            let out = forkboard(&args, b"");
            assert!(
                out.status.code().is_some_and(|c| c <= 1),
                "{name} {extra:?}: {}",
                text(&out.stderr)
            );
            out.stdout
        };
        let whole = solve(&[]);
        assert!(text(&whole).lines().count() >= 2, "{name}");
        for of in [3, 8] {
            let mut joined = Vec::new();
            for index in 1..=of {
                joined.extend(solve(&["--shard", &format!("{index}/{of}")]));
            }
            assert!(
                joined == whole,
                "{name}, {of} shards differ from the whole output"
            );
        }
    }
    let refused = forkboard(&["solve", "--shard", "1/2"], b"1");
    assert!(text(&refused.stderr).contains("not standard input"));
    let bad = forkboard(&["solve", "-", "--shard", "3/2"], b"");
    assert!(text(&bad.stderr).contains("K/M"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generate_makes_unique_puzzles_of_the_asked_grade_and_rate_agrees() {
    let args = [
        "generate",
        "--count",
        "6",
        "--grade",
        "hard",
        "--symmetric",
        "--seed",
        "9",
    ];
    let made = forkboard(&args, b"");
    assert!(made.status.success(), "{}", text(&made.stderr));
    let puzzles = text(&made.stdout);
    assert_eq!(puzzles.lines().count(), 6);
    // The same seed makes the same puzzles.
    assert_eq!(forkboard(&args, b"").stdout, made.stdout);
    let counted = forkboard(
        &["solve", "--count", "2", "--stats", "-"],
        puzzles.as_bytes(),
    );
    assert!(
        text(&counted.stderr).contains("unique       6"),
        "{}",
        text(&counted.stderr)
    );
    let rated = forkboard(&["rate", "--check", "-"], puzzles.as_bytes());
    assert!(rated.status.success(), "{}", text(&rated.stderr));
    let rows: Vec<String> = text(&rated.stdout)
        .lines()
        .skip(1)
        .map(String::from)
        .collect();
    assert_eq!(rows.len(), 6);
    assert!(
        rows.iter().all(|r| r.split(',').nth(1) == Some("Hard")),
        "{rows:?}"
    );
}

#[test]
fn rate_names_bad_and_ambiguous_puzzles_and_rates_the_rest() {
    let input = "530070000600195000098000060800060003400803001700020006060000280000419005000080079\n\
                 55..............................................................................\n\
                 8.........95.......76.........426798...571243...893165......916....3.487....1.532\n";
    let rated = forkboard(&["rate", "--explain", "-"], input.as_bytes());
    assert_eq!(rated.status.code(), Some(1));
    let out = text(&rated.stdout);
    assert!(
        out.starts_with("line,grade,score,hardest,steps\n1,Easy,204,"),
        "{out}"
    );
    assert!(
        out.contains("\n# Naked single: r5c5 can only be 5.\n"),
        "{out}"
    );
    assert!(out.contains("\n2,invalid,,,\n"), "{out}");
    assert!(out.contains("\n3,several solutions,,,\n"), "{out}");
    assert!(
        text(&rated.stderr).contains("line 2: "),
        "{}",
        text(&rated.stderr)
    );
}

#[test]
fn solve_rate_adds_grade_columns_to_csv_and_refuses_other_layouts() {
    let made = forkboard(
        &[
            "generate", "--count", "3", "--grade", "medium", "--csv", "--seed", "4",
        ],
        b"",
    );
    assert!(made.status.success(), "{}", text(&made.stderr));
    // The generator's CSV (puzzle,solution,grade,score) read as input, plus a puzzle with many solutions and
    // one whose logical solution needs guesses (the rating's search runs inside the CSV's formatting).
    let mut input = text(&made.stdout);
    input.push_str(&format!("{},,,\n", ".".repeat(81)));
    input.push_str(
        "98.7..6..75..4......3..8.7.5....7.3...94.........2.1..3.......1.9...5.8...52....6,,,\n",
    );
    let rated = forkboard(&["solve", "--rate", "-"], input.as_bytes());
    assert!(rated.status.success(), "{}", text(&rated.stderr));
    let out = text(&rated.stdout);
    let rows: Vec<&str> = out.lines().collect();
    assert_eq!(rows[0], "quizzes,solutions,status,grade,score", "{out}");
    let given: Vec<&str> = input.lines().skip(1).collect();
    for (row, made) in rows[1..4].iter().zip(&given) {
        let score = made.rsplit(',').next().unwrap();
        assert!(
            row.ends_with(&format!(",\"solved\",\"Medium\",{score}")),
            "{row}"
        );
    }
    assert!(
        rows[4].ends_with(",\"not rated: more than one solution\","),
        "{}",
        rows[4]
    );
    assert!(
        rows[5].contains(",\"solved\",\"Needs guessing\","),
        "{}",
        rows[5]
    );
    // Sharded, the parts still make the whole, header once.
    let path = std::env::temp_dir().join(format!("forkboard-rate-{}.csv", std::process::id()));
    std::fs::write(&path, &input).unwrap();
    let file = path.to_str().unwrap();
    let parts: Vec<u8> = ["1/2", "2/2"]
        .iter()
        .flat_map(|k| forkboard(&["solve", "--rate", "--shard", k, file], b"").stdout)
        .collect();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(text(&parts), out);
    let refused = forkboard(
        &["solve", "--rate", "-"],
        given[0].split(',').next().unwrap().as_bytes(),
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("--rate adds grade and score columns to CSV output"),
        "{}",
        text(&refused.stderr)
    );
}

#[test]
fn generate_on_the_gpu_checks_uniqueness_in_batches_and_makes_the_same_puzzles() {
    // A GPU test: lavapipe here; no adapter is a failure, not a skip.
    for args in [
        vec!["generate", "--count", "12", "--seed", "4", "--csv"],
        vec![
            "generate",
            "--count",
            "3",
            "--grade",
            "hard",
            "--symmetric",
            "--seed",
            "2",
        ],
        vec![
            "generate", "--size", "6", "--box", "3x2", "--count", "8", "--seed", "3",
        ],
    ] {
        let cpu = forkboard(&[&args[..], &["--engine", "cpu"]].concat(), b"");
        let gpu = forkboard(&[&args[..], &["--engine", "gpu"]].concat(), b"");
        assert!(gpu.status.success(), "{}", text(&gpu.stderr));
        assert_eq!(text(&gpu.stdout), text(&cpu.stdout), "{args:?}");
        let stats = text(&gpu.stderr);
        let checks: u64 = stats
            .lines()
            .find_map(|l| l.strip_prefix("GPU checks"))
            .and_then(|l| l.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no GPU checks line: {stats}"));
        assert!(checks > 0, "{stats}");
        assert!(!stats.contains("GPU failed"), "{stats}");
    }
}

#[test]
fn generate_html_prints_the_same_puzzles_on_a4_sheets() {
    let lines = forkboard(&["generate", "--count", "7", "--seed", "3"], b"");
    let page = forkboard(&["generate", "--count", "7", "--seed", "3", "--html"], b"");
    assert!(page.status.success(), "{}", text(&page.stderr));
    let page = text(&page.stdout);
    assert!(page.starts_with("<!doctype html>") && page.contains("@page { size: A4;"));
    assert!(
        page.contains("<h1>7 9×9 Sudoku from Forkboard (seed 3)</h1>"),
        "{page}"
    );
    assert_eq!(page.matches("<figure>").count(), 14);
    // The first puzzle's givens, row by row, as the lines output has them.
    let first = text(&lines.stdout).lines().next().unwrap().to_string();
    let table = &page[page.find("<table>").unwrap()..page.find("</table>").unwrap()];
    let cells: String = table
        .split("<td")
        .skip(1)
        .map(|td| match td.split('>').nth(1).unwrap().chars().next() {
            Some('<') | None => '.',
            Some(c) => c,
        })
        .collect();
    assert_eq!(cells, first);
}

#[test]
fn generate_refuses_an_unknown_grade_and_a_box_of_another_size() {
    let bad = forkboard(&["generate", "--grade", "fiendish"], b"");
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("unknown grade `fiendish`"));
    let bad = forkboard(&["generate", "--size", "9", "--box", "4x4"], b"");
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("--box 4x4 makes 16×16 grids, not 9×9"));
}

/// The puzzles `--stats` says the GPU answered (its engine line names a Vulkan adapter).
fn puzzles_on_the_gpu(stats: &str) -> u64 {
    stats
        .split("(Vulkan) — ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no GPU line: {stats}"))
}

/// `solve PATH ARGS` on the CPU, then under auto with lavapipe taken for a GPU: (cpu, auto).
fn solved_on_cpu_and_auto(path: &str, args: &[&str]) -> (Output, Output) {
    let run = |engine: &[&str]| forkboard(&[&["solve", path][..], engine, args].concat(), b"");
    (run(&["--engine", "cpu"]), run(&["--auto-software-gpu"]))
}

#[test]
fn auto_answers_on_the_cpu_while_the_gpu_is_set_up() {
    // `--auto-software-gpu` has auto take lavapipe for a GPU, as it takes a hardware one, and set it up on a
    // thread of its own while the CPU answers.
    let puzzle = plain_test_puzzles()[0].0.clone() + "\n";
    let cpu = forkboard(&["solve", "--engine", "cpu"], puzzle.as_bytes());
    // One puzzle: answered on the CPU before the setup would begin (50 ms into the run), so none is set up.
    let one = forkboard(
        &["solve", "--auto-software-gpu", "--stats"],
        puzzle.as_bytes(),
    );
    let stats = text(&one.stderr);
    assert!(one.status.success(), "{stats}");
    assert_eq!(text(&one.stdout), text(&cpu.stdout));
    assert!(
        stats.contains("engine       cpu") && stats.contains("so none was"),
        "{stats}"
    );
    // The same puzzle on an input that stays open for 150 ms: the setup has begun (an input of unknown size
    // may go on), and the process ends without waiting for it (lavapipe's takes a quarter of a second here).
    let mut child = spawn(&["solve", "--auto-software-gpu", "--stats"], Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(puzzle.as_bytes()).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(150));
    drop(stdin);
    let open = child.wait_with_output().unwrap();
    let stats = text(&open.stderr);
    assert!(open.status.success(), "{stats}");
    assert_eq!(text(&open.stdout), text(&cpu.stdout));
    assert!(
        stats.contains("engine       cpu") && stats.contains("before a GPU was set up"),
        "{stats}"
    );
    // A file of fewer lines than a GPU chunk's least puzzles: no GPU is even looked for.
    let dir = std::env::temp_dir().join(format!("forkboard-auto-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("one.txt");
    std::fs::write(&file, &puzzle).unwrap();
    let one = forkboard(
        &[
            "solve",
            file.to_str().unwrap(),
            "--auto-software-gpu",
            "--stats",
        ],
        b"",
    );
    let stats = text(&one.stderr);
    assert!(stats.contains("no GPU was looked for"), "{stats}");
    assert_eq!(text(&one.stdout), text(&cpu.stdout));

    // 6,000 of the hardest puzzles on one thread, some 0.1 s here: past the 50 ms at which the setup could begin,
    // but at the rate the CPU keeps it has far less than half a second of work left then, so no GPU is set up.
    let hard = std::fs::read_to_string(shared("forum_hardest_11plus.txt")).unwrap();
    let hard: String = hard.lines().take(6000).map(|l| format!("{l}\n")).collect();
    let file = dir.join("hard.txt");
    std::fs::write(&file, &hard).unwrap();
    let path = file.to_str().unwrap();
    let (cpu, many) = solved_on_cpu_and_auto(path, &["--threads", "1", "--stats"]);
    let stats = text(&many.stderr);
    assert!(many.status.success(), "{stats}");
    assert_eq!(text(&many.stdout), text(&cpu.stdout));
    assert!(
        stats.contains("engine       cpu")
            && stats.contains("sooner than a GPU could be set up, so none was"),
        "{stats}"
    );
    std::fs::remove_dir_all(&dir).unwrap();

    // Chunks of 500, whichever engine answers each: the CPU's answers, in order.
    let input = plain_test_input();
    let cpu = forkboard(&["solve", "--engine", "cpu"], input.as_bytes());
    let auto = ["solve", "--auto-software-gpu", "--chunk", "500", "--stats"];
    let raced = forkboard(&auto, input.as_bytes());
    assert_eq!(raced.status.code(), Some(1), "{}", text(&raced.stderr));
    assert_eq!(text(&raced.stdout), text(&cpu.stdout), "raced");
    // An input that pauses until the GPU is surely set up (a quarter of a second on lavapipe, and on an H200
    // whose driver has the shaders compiled already: a run on the GPU first sees to that): the CPU answers what
    // came before, the GPU the rest, in order.
    let warm = forkboard(&["solve", "--engine", "gpu"], puzzle.as_bytes());
    assert!(warm.status.success(), "{}", text(&warm.stderr));
    let cut = input.match_indices('\n').nth(99).unwrap().0 + 1;
    let mut child = spawn(&auto, Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    let (head, tail) = (input[..cut].to_string(), input[cut..].to_string());
    let feeding = std::thread::spawn(move || {
        stdin.write_all(head.as_bytes()).unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(std::time::Duration::from_secs(4));
        stdin.write_all(tail.as_bytes()).unwrap();
    });
    let moved = child.wait_with_output().unwrap();
    feeding.join().unwrap();
    let stats = text(&moved.stderr);
    assert_eq!(moved.status.code(), Some(1), "{stats}");
    assert_eq!(text(&moved.stdout), text(&cpu.stdout), "moved to the GPU");
    let on_gpu = puzzles_on_the_gpu(&stats);
    assert!(on_gpu >= 2800, "{stats}");
    assert!(
        stats.contains("; cpu ("),
        "the CPU answered the first lines: {stats}"
    );
    // Chunks that wait for the setup: every chunk of 32 puzzles or more goes to the GPU.
    let waits = [&auto[..], &["--auto-waits-for-gpu"]].concat();
    let many = forkboard(&waits, input.as_bytes());
    let stats = text(&many.stderr);
    assert_eq!(many.status.code(), Some(1), "{stats}");
    assert_eq!(text(&many.stdout), text(&cpu.stdout));
    let on_gpu = puzzles_on_the_gpu(&stats);
    assert!(on_gpu >= 2900, "{stats}");
    // Lost mid-run, on a GPU set up after the run began: nothing lost.
    let lost = forkboard(
        &[&waits[..], &["--lose-gpu-after", "3"]].concat(),
        input.as_bytes(),
    );
    let stats = text(&lost.stderr);
    assert_eq!(lost.status.code(), Some(1), "{stats}");
    assert!(stats.contains("the GPU failed"), "{stats}");
    assert_eq!(text(&lost.stdout), text(&cpu.stdout), "lost");
}

#[test]
fn auto_hands_the_gpu_pieces_read_ahead_when_it_becomes_ready_at_the_end_of_the_input() {
    // One core, pieces of about 4 KB (50 lines): the core takes the first piece, 60 empty grids counted to
    // 300,000 solutions (seconds of work), while the reader has read the rest of the file into the pieces after
    // it. The GPU (lavapipe) is ready long before the first piece is done: the pieces read and not handed out
    // go to it, nothing lost, in order, though the input has ended.
    let empty = format!("{}\n", ".".repeat(81));
    let mut input = empty.repeat(60);
    for (line, _, _) in plain_test_puzzles().into_iter().take(100) {
        input.push_str(&line);
        input.push('\n');
    }
    let dir = std::env::temp_dir().join(format!("forkboard-ahead-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ahead.txt");
    std::fs::write(&file, &input).unwrap();
    let path = file.to_str().unwrap();
    let common = [
        "--threads",
        "1",
        "--chunk",
        "500",
        "--count",
        "300000",
        "--stats",
    ];
    let (cpu, auto) = solved_on_cpu_and_auto(path, &common);
    let stats = text(&auto.stderr);
    assert_eq!(auto.status.code(), cpu.status.code(), "{stats}");
    let (got, want) = (text(&auto.stdout), text(&cpu.stdout));
    assert_eq!(got.lines().count(), 160, "{stats}");
    for (got, want) in got.lines().zip(want.lines()) {
        // An empty grid's count is the CPU's; its solution may be another (a GPU that searched it may print
        // any of them).
        match want.split_once(' ') {
            Some((_, count)) if count.ends_with('+') => {
                assert_eq!(got.split_once(' ').map(|(_, c)| c), Some(count), "{stats}")
            }
            _ => assert_eq!(got, want, "{stats}"),
        }
    }
    assert!(
        stats.contains("(Vulkan) — ") && stats.contains("; cpu (1 threads) — "),
        "the CPU took the first piece, the GPU the rest: {stats}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
