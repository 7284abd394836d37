//! The network's shapes on encoded positions, and training steps that lower the loss.

use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor, TensorData};
use flipzero_core::{Game, Preset};
use flipzero_data::Encoder;
use flipzero_nn::{NetConfig, PolicyValueNet};

fn tiny(rules: &flipzero_core::Rules, planes: usize) -> NetConfig {
    NetConfig {
        input_planes: planes,
        rows: usize::from(rules.rows()),
        cols: usize::from(rules.cols()),
        decisions: rules.decision_count(),
        tower: flipzero_nn::Tower::new(1, 8, 16),
        torus: false,
    }
}

/// The start and the positions after each first move, encoded as one batch.
fn batch(device: &Device) -> (Tensor<4>, usize, NetConfig) {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let encoder = Encoder::new(&rules);
    let start = Game::<u64>::start(&rules);
    let mut games = vec![start.clone()];
    for decision in start.legal_decisions(&rules) {
        games.push(start.play_unchecked(&rules, decision));
    }
    let (planes, rows, cols) = encoder.shape();
    let mut values = Vec::new();
    for game in &games {
        values.extend(encoder.encode(game).iter().copied());
    }
    let data = TensorData::new(values, [games.len(), planes, rows, cols]);
    (
        Tensor::<4>::from_data(data, device),
        games.len(),
        tiny(&rules, planes),
    )
}

#[test]
fn the_heads_have_the_rules_shapes() {
    let device = Device::flex();
    let (input, size, config) = batch(&device);
    let net = config.init(&device);
    let output = net.forward(input);
    assert_eq!(output.policy_logits.dims(), [size, 37]);
    assert_eq!(output.wdl_logits.dims(), [size, 3]);
    assert_eq!(output.score.dims(), [size, 1]);
}

fn loss(net: &PolicyValueNet, input: Tensor<4>, device: &Device, size: usize) -> Tensor<1> {
    let output = net.forward(input);
    // Fixed targets: all policy on decision 0, every game a win, score +0.5.
    let mut policy = vec![0.0f32; size * 37];
    for row in 0..size {
        policy[row * 37] = 1.0;
    }
    let policy = Tensor::<2>::from_data(TensorData::new(policy, [size, 37]), device);
    let wdl = Tensor::<2>::from_data(
        TensorData::new([1.0f32, 0.0, 0.0].repeat(size), [size, 3]),
        device,
    );
    let score = Tensor::<2>::from_data(TensorData::new(vec![0.5f32; size], [size, 1]), device);
    let policy_loss = (log_softmax(output.policy_logits, 1) * policy)
        .sum_dim(1)
        .mean()
        .neg();
    let wdl_loss = (log_softmax(output.wdl_logits, 1) * wdl)
        .sum_dim(1)
        .mean()
        .neg();
    let score_loss = (output.score - score).powf_scalar(2.0).mean();
    policy_loss + wdl_loss + score_loss
}

fn scalar(tensor: Tensor<1>) -> f32 {
    tensor.into_data().try_into_vec::<f32>().unwrap()[0]
}

#[test]
fn adam_steps_lower_the_loss_on_a_fixed_batch() {
    let device = Device::flex().autodiff();
    // Seeded: the same network on every machine, so a draw cannot decide the test.
    device.seed(5);
    let (input, size, config) = batch(&device);
    let mut net = config.init(&device);
    let mut optimizer = AdamConfig::new().init();
    let before = scalar(loss(&net, input.clone(), &device, size));
    for _ in 0..5 {
        let value = loss(&net, input.clone(), &device, size);
        let gradients = GradientsParams::from_grads(value.backward(), &net);
        net = optimizer.step(1e-2, net, gradients);
    }
    let after = scalar(loss(&net, input, &device, size));
    assert!(after < before, "loss {before} -> {after}");
}

#[test]
fn the_network_guides_a_search_and_batches_do_not_change_answers() {
    use flipzero_mcts::{Evaluator, Mcts, MctsConfig};
    use flipzero_nn::NetEvaluator;
    let device = Device::flex();
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let (_, _, config) = batch(&device);
    let net = config.init(&device);
    let mut evaluator = NetEvaluator::new(&rules, &net, &device);
    let start = Game::<u64>::start(&rules);
    let games: Vec<Game<u64>> = start
        .legal_decisions(&rules)
        .into_iter()
        .map(|d| start.play_unchecked(&rules, d))
        .collect();
    let legal: Vec<Vec<flipzero_core::Decision>> =
        games.iter().map(|g| g.legal_decisions(&rules)).collect();
    let positions: Vec<(&Game<u64>, &[flipzero_core::Decision])> = games
        .iter()
        .zip(&legal)
        .map(|(g, l)| (g, l.as_slice()))
        .collect();
    let together = evaluator.evaluate(&rules, &positions);
    for (index, position) in positions.iter().enumerate() {
        let alone = evaluator
            .evaluate(&rules, std::slice::from_ref(position))
            .remove(0);
        let sum: f32 = alone.priors.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "priors sum to {sum}");
        assert!(alone.value.abs() <= 1.0);
        assert!((alone.value - together[index].value).abs() < 1e-5);
        for (a, b) in alone.priors.iter().zip(&together[index].priors) {
            assert!((a - b).abs() < 1e-5, "{a} vs {b}");
        }
    }
    let search = MctsConfig {
        simulations: 50,
        ..MctsConfig::default()
    };
    let mut tree = Mcts::new(&rules, search, &start);
    let result = tree.search(&mut evaluator);
    assert_eq!(result.decisions.iter().map(|d| d.1).sum::<u32>(), 50);
}

/// Averaged over every symmetry, a fresh network's evaluation of a position and of its
/// mirror image agree decision for decision (each decision's image gets its prior), and the
/// average is the mean of the eight single evaluations of the images; a single evaluation
/// of a fresh network tells the two images apart.
#[test]
fn averaging_over_every_symmetry_makes_the_evaluation_of_a_position_and_its_images_agree() {
    use flipzero_core::{Decision, Symmetry};
    use flipzero_mcts::Evaluator;
    use flipzero_nn::NetEvaluator;
    let device = Device::flex();
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let (_, _, config) = batch(&device);
    let net = config.init(&device);
    let mut single = NetEvaluator::new(&rules, &net, &device);
    let mut averaged = NetEvaluator::new(&rules, &net, &device).over_every_symmetry(true);
    let start = Game::<u64>::start(&rules);
    let first = start.legal_decisions(&rules)[0];
    let game = start.play_unchecked(&rules, first);
    let legal = game.legal_decisions(&rules);
    let evaluate = |evaluator: &mut NetEvaluator, symmetry: Symmetry| {
        let image = game.transformed(symmetry);
        let image_legal: Vec<Decision> = legal
            .iter()
            .map(|d| d.transformed(game.geometry(), symmetry))
            .collect();
        evaluator
            .evaluate(&rules, &[(&image, image_legal.as_slice())])
            .remove(0)
    };
    let close = |a: f32, b: f32| (a - b).abs() < 1e-4;
    let plain = evaluate(&mut averaged, Symmetry::Identity);
    let mirrored = evaluate(&mut averaged, Symmetry::MirrorColumns);
    assert!(close(plain.value, mirrored.value));
    assert!(close(plain.score, mirrored.score));
    for (a, b) in plain.priors.iter().zip(&mirrored.priors) {
        assert!(close(*a, *b), "{a} vs {b}");
    }
    let singles: Vec<_> = Symmetry::ALL
        .iter()
        .map(|&symmetry| evaluate(&mut single, symmetry))
        .collect();
    let mean = |f: &dyn Fn(&flipzero_mcts::Evaluation) -> f32| {
        singles.iter().map(f).sum::<f32>() / singles.len() as f32
    };
    assert!(close(plain.value, mean(&|e| e.value)));
    for (index, prior) in plain.priors.iter().enumerate() {
        assert!(close(*prior, mean(&|e| e.priors[index])));
    }
    let differs = singles[1..].iter().any(|e| {
        e.priors
            .iter()
            .zip(&singles[0].priors)
            .any(|(a, b)| !close(*a, *b))
    });
    assert!(differs, "a fresh network sees every image the same");
}
