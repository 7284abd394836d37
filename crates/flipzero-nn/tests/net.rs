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
        blocks: 1,
        channels: 8,
        value_hidden: 16,
        policy_channels: 2,
        value_channels: 1,
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
