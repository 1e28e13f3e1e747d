//! tc::nn layers against PyTorch 1.13: forward values and gradients for
//! fixed float64 weights (tests/rust/nn_modules_expected.py prints the
//! constants below), BatchNorm2d running statistics, initialization ranges,
//! dropout, a tiny transformer trained with AdamW, and the word-language-model
//! recipe (recurrent and Transformer) step by step.
use tc::nn::{BatchNorm2d, CausalSelfAttention, Conv2d, Dropout, Embedding, LayerNorm, Linear, Module, Recurrent, RnnConfig};
use tc::{AdamW, AdamWOptions, DType, Device, Reduction, Tensor};

// Printed by `/usr/bin/python3 tests/rust/nn_modules_expected.py`.
const LINEAR_Y: [f64; 8] = [1.738242836628915, 1.1494452412494225, 1.6662468466359983, 1.7100250815436615, -0.035753686779077976, 1.4792141574386026, -1.4773859741532451, 0.7133688459581424];
const LINEAR_GW: [f64; 6] = [1.0726373397391378, 1.4623119173505326, 1.6540694369638478, -0.017714491600993552, 0.5189494127799146, 0.9853759486428095];
const LINEAR_GB: [f64; 2] = [-0.07972212847139815, 0.3885358487046306];
const LINEAR_GX: [f64; 12] = [0.7830530411429787, 0.43498294635126983, -0.11766642490546579, 0.2002721593774959, 0.6529913641540839, 0.798598527097487, -0.8740575493815285, -0.7317049578558784, -0.24522009144526039, 0.19690325282608315, -0.3205015659097388, -0.6871694902230997];
const LN_Y: [f64; 12] = [-0.8049571119327121, 1.0502330714804449, 1.5320399749006435, 0.44378765624686056, 2.2784936220408607, 1.3638920381344208, -0.15891464225868843, -1.5611111801221191, -0.39143456796371834, 0.3618056659022056, 0.9648523253522892, 1.2868277882630612];
const LN_GW: [f64; 4] = [-2.631353691137183, -0.8019567580490713, 1.2035271856474201, -1.2616643601326947];
const LN_GB: [f64; 4] = [0.5457540242521046, 0.790473385219666, 0.43697824755829784, -0.2472133160202986];
const LN_GX: [f64; 12] = [-0.21086911285756937, 1.228873137182557, 0.6985757206840244, -1.7165797450090112, 0.5714619196781141, -0.7520258464054792, -0.5787236607047075, 0.7592875874320726, -0.33789607117102455, 0.3488855499210872, 0.19995854699962295, -0.21094802574968552];
const EMB_Y: [f64; 12] = [0.9968650284539189, 0.8632093666488737, 0.557683717391417, -0.5506855425976376, -0.13279190885251674, 0.31154136351337786, 0.9968650284539189, 0.8632093666488737, 0.557683717391417, 0.29552020666133955, 0.6816387600233341, 0.9320390859672263];
const EMB_GW: [f64; 15] = [0.8545989080882804, 0.1244544235070617, -0.6998746875935437, -0.25516533593629803, 1.2435804494806042, 1.8012093434236127, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.1411200080598672, -0.6877661591839738, -0.9961646088358407];
const CONV_Y: [f64; 12] = [1.7014171471555342, 2.562354233243255, 1.612739311747061, 0.33319005791597467, 1.0613144434309387, 0.0652225984985022, -0.18726832996170084, 0.5086358320990593, -0.9370897047803862, -0.4412383738351974, 0.8522974108660601, 1.1839474210153798];
const CONV_GW: [f64; 24] = [0.5406132669449029, 0.04865592128541403, 0.3176441457295542, 0.16782718676718722, 0.8561891516246353, 0.9875147285012912, 0.22809220910308695, 0.3509957473117302, -0.296177321524618, -0.1905225235130831, -1.3907698967350917, -1.3383117602262093, -0.14545959145719944, -0.2712387933734844, 0.19312940179566487, -0.543246515799187, -0.009414255335891483, 0.29304943163774183, 2.1767250744331794, 2.2324574825564545, -0.5953049258730966, -0.5010433869133113, -0.5744730421067704, 0.6233260230625145];
const CONV_GB: [f64; 3] = [2.231888667337307, -1.9230749471040742, 1.2171786207765374];
const CONV_GX: [f64; 18] = [-0.22354011967821316, 0.6435201786151046, 1.0104869251929056, -0.007033929048694948, 1.2208372675797963, 0.7012892564733445, 0.7271434925151533, 1.5167365990201913, 0.254883690281301, 1.3619792474752854, 3.7014866820495786, 2.2092676903468376, 1.2234906742843128, 1.3165497620997586, -0.2748878824876269, 1.3196650106015972, 0.6857528064821549, -0.7147505835116507];
const BN_Y1: [f64; 24] = [0.9289207447663654, 1.4614155099029595, 1.9083100204413959, 2.2270005444715966, 2.0546726779742435, 2.0436143912237523, 1.8937338228131886, 1.619319516021816, 1.382688261305345, 0.8412654559942183, 0.2733630744949577, -0.2668791248334938, -0.45166563559632567, -0.7235838369487491, -0.8705193980501195, -0.878464531591354, -1.094601493299429, -0.7727151026822993, -0.3234429052413591, 0.2103846954201676, 0.7599086822674986, 1.200061910832371, 1.58181112844579, 1.8687630903026462];
const BN_GX1: [f64; 24] = [-0.04839105259323707, 0.8616014410850966, 0.5161577896559442, -0.9680512009886746, -0.8701211414389297, -1.3272135215992558, -0.6774229859119258, 0.5812401657484845, 0.911118140152314, 1.0228527561272258, -0.042007108848877484, -1.293646891540805, -1.4824352345836787, -0.8218534182299252, 0.4475556246630741, 1.3589896988425487, 1.9545660768165378, 0.4395400152384123, -1.2878549641951027, -2.0658850009088345, -0.7070432519434189, 0.6017801322780097, 1.5224201818821708, 1.3741037502928464];
const BN_GW: [f64; 2] = [3.2586888100071043, -0.5983604644671215];
const BN_GB: [f64; 2] = [2.698123048716464, -0.5762438133495813];
const BN_RUNNING_MEAN: [f64; 2] = [0.23284100663181673, -0.01726877403758364];
const BN_RUNNING_VAR: [f64; 2] = [0.8722636398269481, 0.9034545520003289];
const BN_EVAL_Y: [f64; 8] = [0.41938581928818947, 1.062724714449708, 1.3900580876382431, 1.2639008363342654, 1.3431434236216417, 0.5486040992342516, -0.11401153827022735, -0.3663946260772637];
const ATTN_Y: [f64; 24] = [-3.083248438554463, 2.4053485275681803, 4.120597829423331, -2.263040599388177, -3.008079932883315, 1.932780691925895, 4.110783989189127, -1.789115540090824, -1.991986784753081, 1.6478544987079236, 3.1340952495427534, -1.3691163245439772, -2.682095410241145, 3.0346496759078754, 3.6324144048221934, -2.82482749478828, -2.5822560143333066, 3.0507784152025508, 3.53034445431241, -2.8268402766190595, -3.0013832233897806, -4.227575784184216, 4.956045466653629, 4.254343896271863];
const ATTN_GQW: [f64; 48] = [4.209584614090333, 2.7239593630674177, 0.377023474047372, -2.0891265021483227, 4.389521069851166, 2.8837100540390392, 0.4660755433102478, -2.0989311452146784, 0.319575800162066, -0.18929219941066133, -0.6383063747109593, -0.8854893192322364, -0.2762150602793367, 0.7689610731384178, 1.5709932149534551, 1.8762803661468237, 0.022389800687973683, 0.14054052988617377, 0.21425261763400985, 0.22021844554810935, -0.3228883515376471, -0.9346701704364152, -1.2509111043533574, -1.1716163867563887, 0.528773670025931, 1.334682427160479, 1.7185672038907713, 1.559044382514588, -0.013397962508747157, -0.09151471456094432, -0.1406946923523645, -0.1453872828222776, 0.010134225707495951, 0.6975032307839674, 1.1643230746442141, 1.2629862331098225, 0.10188849934325235, 0.9144910552054741, 1.437933322966069, 1.5067038784414357, 0.12546431145810538, -0.11903410692317846, -0.32589417285049327, -0.4297071369218837, 0.19841295436325412, -0.09167391158406316, -0.35277366548237915, -0.5023270743783027];
const ATTN_GQB: [f64; 12] = [-1.8420927412978128, -2.2116349750259228, -0.4855320062369842, 0.8260173293161184, 1.1796119636642288e-16, 7.008282842946301e-16, 2.220446049250313e-16, -6.938893903907228e-16, -0.174104603160053, -0.5746582028667756, -0.8799574045429238, -1.0393963149291656];
const ATTN_GPW: [f64; 16] = [1.950147942935722, 1.0840479973923998, 0.16891088186961994, 0.28073338144549603, -0.6717965524767665, -0.8221343435512672, -0.8476934430071674, -0.6342668642599183, -2.7853388102745646, -2.1061418038106483, -1.2227802702914885, -1.0692665921809765, -2.790992186478886, -1.796263136129252, -0.6724913670286071, -0.6950666806170783];
const ATTN_GX: [f64; 24] = [1.5774860956853385, 1.4841967210858698, 1.3127388461116136, 1.0721426786681512, 1.4342361363034937, 1.8242062394263616, 2.1181004894736586, 2.300440296263514, -3.857776767998139, -4.78579423860327, -5.461757279078534, -5.850064802026254, -0.48409615169517645, -0.18904281162783476, 0.11596688589647024, 0.41486893108946576, -1.4318225592442204, -1.3168313393872555, -1.1324862868583547, -0.888496341249538, 0.4451392675591033, 0.32024476133701196, 0.17848385702162847, 0.027322705928795335];

const LSTM_Y: [f64; 48] = [-0.06993562607671669, -0.2070599491261143, -0.3709142008033346, -0.0702291203826655, 0.037752824727841285, 0.15457664289129885, -0.06702618934763083, -0.2089673768680011, -0.39265779308840587, -0.04792819691517765, 0.027688687383516413, 0.15091376723364688, -0.16279330471066464, -0.2724638673164949, -0.3545262140496823, -0.14643640478157793, 0.19462960145353517, 0.17842722970921554, -0.17033726971014815, -0.22779665872865412, -0.20674434286275822, -0.19876031574131986, 0.2004602394971548, 0.21762540692276297, -0.21606237780242807, -0.2343796475427938, -0.13016556629623413, -0.19160103635955866, 0.13503302465532996, 0.23070296006577007, -0.14590536612537267, -0.17795880967029196, -0.09719873685817393, -0.14814757065506734, 0.11435894582100291, 0.20987531817899033, -0.19296033539110885, -0.2624347698038727, -0.2120606161452816, -0.12648136075589209, 0.1435380188014549, 0.1492261251700527, -0.14587793463242507, -0.274395975329521, -0.35583660897875175, -0.017917843601341965, 0.04922356412378269, 0.08305527132689268];
const LSTM_HN: [f64; 12] = [-0.19296033539110885, -0.2624347698038727, -0.2120606161452816, -0.14587793463242507, -0.274395975329521, -0.35583660897875175, -0.0702291203826655, 0.037752824727841285, 0.15457664289129885, -0.04792819691517765, 0.027688687383516413, 0.15091376723364688];
const LSTM_GX: [f64; 16] = [0.09191178254506215, 0.11004324633550318, 0.1198651602611721, -0.033397155624372794, 0.1135999146889807, -0.09312496239932723, 0.14978585731347283, 0.03299237824057839, 0.04867521270572148, -0.0038047104452535166, -0.07600652886247952, -0.06368538370430604, -0.11175338757439471, -0.03384419792859096, 0.045708817807687735, 0.0919331864938153];
const LSTM_GW0: [f64; 24] = [0.02286686878228807, 0.007241482556229568, -0.008164443263836635, -0.044114282273073756, -0.04286063239888212, -0.06306198769532173, 0.09632740347120086, 0.08527544193066719, 0.02380692034149627, -0.0058274863312260715, -0.07492403483396368, -0.09845937845606204, -0.3668582010129908, -0.2967749736896515, -0.04941655633964367, 0.026236216279254435, 0.20852646705461136, 0.2676649473047568, 0.1954996136701149, 0.06068028185163133, -0.1731617094360742, -0.39218130714925514, -0.5010847395529193, -0.5489361521531773];
const GRU_Y: [f64; 24] = [-0.2935432343301998, 0.338601385786932, 0.5087693825385479, -0.29258643616795255, 0.3402543567977137, 0.5080854276121938, -0.5180673087329769, 0.43284631515218724, 0.7127871251003353, -0.44053425232086013, 0.4114171974008244, 0.7013070824785917, -0.5237616090009966, 0.4226751926195918, 0.772981263541126, -0.4492836761529644, 0.41464741102935915, 0.7503000852219734, -0.568768515248765, 0.4383048501825508, 0.8155035032384255, -0.5583547909888771, 0.4519991196348756, 0.8135737761033436];
const GRU_HN: [f64; 12] = [-0.04125206521620259, -0.1754775449431702, -0.2700045379828656, -0.04680105672083795, -0.21899040326160113, -0.42389538476368077, -0.568768515248765, 0.4383048501825508, 0.8155035032384255, -0.5583547909888771, 0.4519991196348756, 0.8135737761033436];
const GRU_GX: [f64; 16] = [-0.0044122496305060285, 0.023548766594982465, 0.019184171071380665, -0.01466390647019214, 0.034275108777082244, 0.05223430893064121, -0.1456285337908495, -0.16662486854595543, 0.1228595388614332, 0.13984747824592433, -0.05340950728456693, -0.0784097027783648, 0.00877482574381158, 0.020942514074617467, 0.006803391652468082, 0.005195492335200348];
const GRU_GW0: [f64; 18] = [-0.001250468433429438, -0.0016912123579459779, -0.00016077567026571478, 0.0036053722253972355, 0.00014456666475600688, 0.0019443831412309007, 0.010059572778563121, 0.003745338727479804, -0.006014256573640543, -0.0272040951767883, -0.014055600997224506, -0.036005822261161204, -0.00712357375244181, -0.01873064485331763, -0.002102198903382227, -0.03273061425560374, -0.0038102125572515556, -0.030549647635574512];
const WORD_LM_LSTM: [f64; 3] = [3.0762951770960694, 3.222861364147499, 3.0509968281674844];
const WORD_LM_GRU: [f64; 3] = [3.0888712561451337, 3.217691926109917, 3.0903831522086778];
const WORD_LM_RNN_TANH: [f64; 3] = [3.1046454921182183, 3.242270492101899, 3.1207920483310785];
const WORD_LM_TRANSFORMER: [f64; 3] = [3.0267739773326, 3.048259423008939, 3.025169131653736];
/// `sin(i * a + b)` for i in 0..numel(shape), float64 (the script's `pat`).
fn pat(a: f64, b: f64, shape: &[i64]) -> Tensor {
    let n: i64 = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| (i as f64 * a + b).sin()).collect();
    Tensor::from_vec(v, shape).unwrap()
}

fn leaf(t: Tensor) -> Tensor {
    t.requires_grad(true).unwrap()
}

/// `(y * pat(0.9, 0.3)).sum().backward()`, the script's `backward`.
fn backward(y: &Tensor) {
    let w = pat(0.9, 0.3, &y.shape().unwrap());
    (y * &w).unwrap().sum_all().unwrap().backward().unwrap();
}

fn assert_close(name: &str, got: &Tensor, want: &[f64]) {
    let got = got.to_vec::<f64>().unwrap();
    assert_eq!(got.len(), want.len(), "{name}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= 1e-10 + 1e-9 * w.abs(), "{name}[{i}]: got {g}, want {w}");
    }
}

fn grad(t: &Tensor) -> Tensor {
    t.grad().unwrap().expect("gradient")
}

#[test]
fn linear_matches_torch() {
    let _tc = tc::init().unwrap();
    let layer = Linear::from_tensors(leaf(pat(0.7, 0.1, &[2, 3])), Some(leaf(pat(1.3, 0.2, &[2]))));
    let x = leaf(pat(0.37, 0.5, &[4, 3]));
    let y = layer.forward(&x).unwrap();
    backward(&y);
    assert_close("y", &y, &LINEAR_Y);
    assert_close("dW", &grad(&layer.weight), &LINEAR_GW);
    assert_close("db", &grad(layer.bias.as_ref().unwrap()), &LINEAR_GB);
    assert_close("dx", &grad(&x), &LINEAR_GX);
    assert_eq!(layer.parameters().len(), 2);
}

#[test]
fn layer_norm_matches_torch() {
    let _tc = tc::init().unwrap();
    let mut ln = LayerNorm::new(&[4], 1e-5, DType::Float64).unwrap();
    ln.weight = leaf(((pat(0.5, 0.0, &[4]) * 0.1).unwrap() + 1.0).unwrap());
    ln.bias = leaf(pat(0.8, 1.0, &[4]));
    let x = leaf(pat(0.61, 0.2, &[3, 4]));
    let y = ln.forward(&x).unwrap();
    backward(&y);
    assert_close("y", &y, &LN_Y);
    assert_close("dw", &grad(&ln.weight), &LN_GW);
    assert_close("db", &grad(&ln.bias), &LN_GB);
    assert_close("dx", &grad(&x), &LN_GX);
}

#[test]
fn embedding_matches_torch() {
    let _tc = tc::init().unwrap();
    let emb = Embedding::from_tensor(leaf(pat(0.45, 0.3, &[5, 3])));
    let y = emb.forward(&Tensor::from_slice(&[1i64, 4, 1, 0], &[4]).unwrap()).unwrap();
    backward(&y);
    assert_close("y", &y, &EMB_Y);
    assert_close("dW", &grad(&emb.weight), &EMB_GW);
}

#[test]
fn conv2d_matches_torch() {
    let _tc = tc::init().unwrap();
    let mut conv = Conv2d::from_tensors(leaf(pat(0.29, 0.4, &[3, 2, 2, 2])), Some(leaf(pat(1.1, 0.7, &[3]))));
    conv.stride = [2, 1];
    conv.padding = [1, 0];
    let x = leaf(pat(0.53, 0.9, &[1, 2, 3, 3]));
    let y = conv.forward(&x).unwrap();
    backward(&y);
    assert_close("y", &y, &CONV_Y);
    assert_close("dW", &grad(&conv.weight), &CONV_GW);
    assert_close("db", &grad(conv.bias.as_ref().unwrap()), &CONV_GB);
    assert_close("dx", &grad(&x), &CONV_GX);
}

#[test]
fn batch_norm2d_running_stats_and_eval_match_torch() {
    let _tc = tc::init().unwrap();
    let mut bn = BatchNorm2d::new(2, DType::Float64).unwrap();
    bn.weight = leaf(((pat(0.9, 0.1, &[2]) * 0.2).unwrap() + 1.0).unwrap());
    bn.bias = leaf(pat(0.4, 0.6, &[2]));
    let x1 = leaf(pat(0.31, 0.2, &[3, 2, 2, 2]));
    let y = bn.forward(&x1).unwrap();
    backward(&y);
    assert_close("y1", &y, &BN_Y1);
    assert_close("dx1", &grad(&x1), &BN_GX1);
    assert_close("dw", &grad(&bn.weight), &BN_GW);
    assert_close("db", &grad(&bn.bias), &BN_GB);
    let x2 = ((pat(0.77, 0.5, &[2, 2, 2, 2]) * 2.0).unwrap() + 1.0).unwrap();
    bn.forward(&x2).unwrap();
    assert_close("running_mean", &bn.running_mean, &BN_RUNNING_MEAN);
    assert_close("running_var", &bn.running_var, &BN_RUNNING_VAR);
    bn.train(false);
    assert_close("eval y", &bn.forward(&pat(0.66, 0.1, &[1, 2, 2, 2])).unwrap(), &BN_EVAL_Y);
    // Evaluation leaves the running statistics alone.
    assert_close("running_mean after eval", &bn.running_mean, &BN_RUNNING_MEAN);
}

#[test]
fn causal_self_attention_matches_torch() {
    let _tc = tc::init().unwrap();
    let mut attn = CausalSelfAttention::new(4, 2, DType::Float64).unwrap();
    attn.qkv = Linear::from_tensors(leaf(pat(0.23, 0.1, &[12, 4])), Some(leaf(pat(0.5, 0.3, &[12]))));
    attn.proj = Linear::from_tensors(leaf(pat(0.41, 0.2, &[4, 4])), Some(leaf(pat(0.9, 0.8, &[4]))));
    let x = leaf(pat(0.57, 0.3, &[2, 3, 4]));
    let y = attn.forward(&x).unwrap();
    backward(&y);
    assert_close("y", &y, &ATTN_Y);
    assert_close("dWqkv", &grad(&attn.qkv.weight), &ATTN_GQW);
    assert_close("dbqkv", &grad(attn.qkv.bias.as_ref().unwrap()), &ATTN_GQB);
    assert_close("dWproj", &grad(&attn.proj.weight), &ATTN_GPW);
    assert_close("dx", &grad(&x), &ATTN_GX);
    assert_eq!(attn.parameters().len(), 4);
    assert!(CausalSelfAttention::new(6, 4, DType::Float64).is_err());
}

#[test]
fn initialization_follows_pytorch() {
    let _tc = tc::init_with(&tc::InitOptions { seed: Some(3), ..Default::default() }).unwrap();
    // kaiming_uniform(a = sqrt 5) and the bias both span ±1/sqrt(fan_in).
    let lin = Linear::new(64, 200, true, DType::Float32).unwrap();
    let conv = Conv2d::new(4, 50, [3, 3], [1, 1], [0, 0], true, DType::Float32).unwrap();
    for (t, fan_in) in [
        (&lin.weight, 64.0),
        (lin.bias.as_ref().unwrap(), 64.0),
        (&conv.weight, 36.0),
        (conv.bias.as_ref().unwrap(), 36.0),
    ] {
        let bound = 1.0 / f64::sqrt(fan_in);
        let amax = t.abs().unwrap().max().unwrap().item().unwrap();
        assert!(amax <= bound && amax > 0.8 * bound, "max |w| {amax}, bound {bound}");
        assert!(t.is_requires_grad().unwrap() && t.is_leaf().unwrap());
    }
    let emb = Embedding::new(200, 100, DType::Float64).unwrap();
    let (mean, std) = (emb.weight.mean_all().unwrap().item().unwrap(), emb.weight.reshape(&[-1]).unwrap().std(&[0], 1, false).unwrap().item().unwrap());
    assert!(mean.abs() < 0.03 && (std - 1.0).abs() < 0.03, "N(0,1): mean {mean}, std {std}");
    let ln = LayerNorm::new(&[5], 1e-5, DType::Float32).unwrap();
    assert_eq!(ln.weight.to_vec::<f32>().unwrap(), vec![1.0; 5]);
    assert_eq!(ln.bias.to_vec::<f32>().unwrap(), vec![0.0; 5]);
    let bn = BatchNorm2d::new(3, DType::Float32).unwrap();
    assert_eq!(bn.running_var.to_vec::<f32>().unwrap(), vec![1.0; 3]);
    assert_eq!(bn.parameters().len(), 2);
}

#[test]
fn dropout_scales_in_training_and_is_identity_in_eval() {
    let _tc = tc::init_with(&tc::InitOptions { seed: Some(5), ..Default::default() }).unwrap();
    let mut drop = Dropout::new(0.3);
    let x = Tensor::ones(&[10000], DType::Float64, Device::Cpu).unwrap();
    let y = drop.forward(&x).unwrap().to_vec::<f64>().unwrap();
    let zeros = y.iter().filter(|v| **v == 0.0).count() as f64 / y.len() as f64;
    assert!((zeros - 0.3).abs() < 0.03, "dropped fraction {zeros}");
    assert!(y.iter().all(|v| *v == 0.0 || (v - 1.0 / 0.7).abs() < 1e-12));
    drop.train(false);
    assert_eq!(drop.forward(&x).unwrap().to_vec::<f64>().unwrap(), vec![1.0; 10000]);
    assert!(drop.parameters().is_empty());
}

/// Two pre-LN blocks (attention + GELU MLP) over token embeddings.
struct TinyTransformer {
    tok: Embedding,
    blocks: Vec<(LayerNorm, CausalSelfAttention, LayerNorm, Linear, Linear)>,
    ln_f: LayerNorm,
    head: Linear,
}

impl TinyTransformer {
    fn new(vocab: i64, d: i64) -> TinyTransformer {
        let f = DType::Float32;
        let block = || {
            (
                LayerNorm::new(&[d], 1e-5, f).unwrap(),
                CausalSelfAttention::new(d, 2, f).unwrap(),
                LayerNorm::new(&[d], 1e-5, f).unwrap(),
                Linear::new(d, 4 * d, true, f).unwrap(),
                Linear::new(4 * d, d, true, f).unwrap(),
            )
        };
        TinyTransformer {
            tok: Embedding::new(vocab, d, f).unwrap(),
            blocks: vec![block(), block()],
            ln_f: LayerNorm::new(&[d], 1e-5, f).unwrap(),
            head: Linear::new(d, vocab, false, f).unwrap(),
        }
    }
    fn forward(&self, idx: &Tensor) -> Tensor {
        let mut x = self.tok.forward(idx).unwrap();
        for (ln1, attn, ln2, fc, proj) in &self.blocks {
            x = (&x + attn.forward(&ln1.forward(&x).unwrap()).unwrap()).unwrap();
            let h = fc.forward(&ln2.forward(&x).unwrap()).unwrap().gelu().unwrap();
            x = (&x + proj.forward(&h).unwrap()).unwrap();
        }
        self.head.forward(&self.ln_f.forward(&x).unwrap()).unwrap()
    }
    fn parameters(&self) -> Vec<Tensor> {
        let mut p = self.tok.parameters();
        for (ln1, attn, ln2, fc, proj) in &self.blocks {
            p.extend(ln1.parameters());
            p.extend(attn.parameters());
            p.extend(ln2.parameters());
            p.extend(fc.parameters());
            p.extend(proj.parameters());
        }
        p.extend(self.ln_f.parameters());
        p.extend(self.head.parameters());
        p
    }
}

#[test]
fn tiny_transformer_loss_decreases_with_adamw() {
    let _tc = tc::init_with(&tc::InitOptions { seed: Some(7), ..Default::default() }).unwrap();
    let (vocab, t) = (6i64, 12i64);
    let model = TinyTransformer::new(vocab, 16);
    let params = model.parameters();
    assert_eq!(params.len(), 1 + 2 * (2 + 4 + 2 + 2 + 2) + 2 + 1);
    let refs: Vec<&Tensor> = params.iter().collect();
    let mut opt = AdamW::new(&refs, AdamWOptions { lr: 1e-2, ..Default::default() }).unwrap();
    // Next-token prediction on a periodic sequence.
    let seq: Vec<i64> = (0..=t).map(|i| (i * 5 + 1) % vocab).collect();
    let x = Tensor::from_slice(&seq[..t as usize], &[1, t]).unwrap();
    let y = Tensor::from_slice(&seq[1..], &[t]).unwrap();
    let mut losses = Vec::new();
    for _ in 0..25 {
        let logits = model.forward(&x).reshape(&[t, vocab]).unwrap();
        let loss = logits.cross_entropy(&y, Reduction::Mean).unwrap();
        losses.push(loss.item().unwrap());
        opt.zero_grad().unwrap();
        loss.backward().unwrap();
        opt.step().unwrap();
    }
    let (first, last) = (losses[0], *losses.last().unwrap());
    assert!(last < 0.5 * first, "loss {first} -> {last}: {losses:?}");
}

#[test]
fn module_to_converts_in_place_and_an_earlier_optimizer_follows() {
    use tc::{Sgd, SgdOptions};
    let _tc = tc::init().unwrap();
    let layer = Linear::new(3, 2, true, DType::Float32).unwrap();
    let params = layer.parameters();
    let mut opt = Sgd::new(
        &params.iter().collect::<Vec<_>>(),
        SgdOptions { lr: 0.1, momentum: 0.9, dampening: 0.0, weight_decay: 0.0, nesterov: false },
    )
    .unwrap();
    // A first step in float32 makes momentum state of that dtype.
    layer.forward(&Tensor::ones(&[4, 3], DType::Float32, Device::Cpu).unwrap()).unwrap().sum_all().unwrap().backward().unwrap();
    opt.step().unwrap();
    opt.zero_grad().unwrap();
    layer.to(Some(DType::Float64), None).unwrap();
    for p in layer.parameters().iter().chain(&params) {
        assert_eq!(p.dtype().unwrap(), DType::Float64); // the same tensors, converted
    }
    let before = layer.weight.to_vec::<f64>().unwrap();
    layer.forward(&Tensor::ones(&[4, 3], DType::Float64, Device::Cpu).unwrap()).unwrap().sum_all().unwrap().backward().unwrap();
    opt.step().unwrap(); // its float32 momentum follows the parameter
    assert_ne!(layer.weight.to_vec::<f64>().unwrap(), before, "the optimizer made before still steps the layer");
}

/// A recurrent layer whose weight k is `sin(i * (0.3 + 0.1 k) + 0.05 k) / 2`, the script's.
fn patterned(mut layer: Recurrent) -> Recurrent {
    for (k, (_, w)) in layer.weights.iter_mut().enumerate() {
        let shape = w.shape().unwrap();
        let n: i64 = shape.iter().product();
        let v: Vec<f64> = (0..n).map(|i| (i as f64 * (0.3 + 0.1 * k as f64) + 0.05 * k as f64).sin() / 2.0).collect();
        *w = leaf(Tensor::from_vec(v, &shape).unwrap());
    }
    layer
}

#[test]
fn lstm_and_gru_match_torch() {
    let _tc = tc::init().unwrap();
    let config = RnnConfig { bidirectional: true, ..RnnConfig::new(2, 3) };
    let lstm = patterned(Recurrent::lstm(config, DType::Float64).unwrap());
    let x = leaf(pat(0.43, 0.7, &[4, 2, 2]));
    let out = lstm.forward(&x, None, None).unwrap();
    backward(&out.output);
    assert_close("lstm y", &out.output, &LSTM_Y);
    assert_close("lstm h_n", &out.h_n, &LSTM_HN);
    assert!(out.c_n.is_some());
    assert_close("lstm dx", &grad(&x), &LSTM_GX);
    assert_close("lstm dw_ih_l0", &grad(&lstm.weights[0].1), &LSTM_GW0);

    let config = RnnConfig { num_layers: 2, ..RnnConfig::new(2, 3) };
    let gru = patterned(Recurrent::gru(config, DType::Float64).unwrap());
    assert_eq!(gru.weights.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>()[4..],
               ["weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1"]);
    let x = leaf(pat(0.43, 0.7, &[4, 2, 2]));
    let out = gru.forward(&x, None, None).unwrap();
    backward(&out.output);
    assert_close("gru y", &out.output, &GRU_Y);
    assert_close("gru h_n", &out.h_n, &GRU_HN);
    assert!(out.c_n.is_none());
    assert_close("gru dx", &grad(&x), &GRU_GX);
    assert_close("gru dw_ih_l0", &grad(&gru.weights[0].1), &GRU_GW0);
}

/// The word-language-model recipe with tied weights, three truncated-BPTT SGD
/// steps with gradient clipping, against PyTorch's losses for the same
/// patterned weights and tokens (the script's WORD_LM_* section).
fn word_lm_losses(mode: tc::nn::RnnMode) -> Vec<f64> {
    use tc::{Sgd, SgdOptions};
    let (ntoken, nhid, bptt, batch) = (20i64, 8i64, 5i64, 2i64);
    let encoder = Embedding::new(ntoken, nhid, DType::Float64).unwrap();
    let rnn = Recurrent::new(mode, RnnConfig { num_layers: 2, ..RnnConfig::new(nhid, nhid) }, DType::Float64).unwrap();
    let decoder_bias = leaf(Tensor::zeros(&[ntoken], DType::Float64, Device::Cpu).unwrap());
    // PyTorch's named_parameters order: encoder.weight (= decoder.weight), the rnn's, decoder.bias.
    let mut params = vec![encoder.weight.clone()];
    params.extend(rnn.parameters());
    params.push(decoder_bias.clone());
    for (k, p) in params.iter().enumerate() {
        let shape = p.shape().unwrap();
        let n: i64 = shape.iter().product();
        let v: Vec<f64> = (0..n).map(|i| (i as f64 * (0.21 + 0.07 * k as f64) + 0.1 * k as f64).sin() / 3.0).collect();
        p.set_data(&Tensor::from_vec(v, &shape).unwrap()).unwrap();
    }
    let mut opt = Sgd::new(&params.iter().collect::<Vec<_>>(),
                           SgdOptions { lr: 1.0, momentum: 0.0, dampening: 0.0, weight_decay: 0.0, nesterov: false })
        .unwrap();
    let tokens: Vec<i64> = (0..batch * (3 * bptt + 1)).map(|i| (7 * i + 3) % ntoken).collect();
    let data = Tensor::from_vec(tokens, &[batch, 3 * bptt + 1]).unwrap().transpose(0, 1).unwrap().contiguous().unwrap();
    let (mut h, mut c): (Option<Tensor>, Option<Tensor>) = (None, None);
    let mut losses = Vec::new();
    for i in (0..3 * bptt).step_by(bptt as usize) {
        let x = data.narrow(0, i, bptt).unwrap();
        let y = data.narrow(0, i + 1, bptt).unwrap().reshape(&[-1]).unwrap();
        opt.zero_grad().unwrap();
        let out = rnn.forward(&encoder.forward(&x).unwrap(), h.as_ref(), c.as_ref()).unwrap();
        let logits = out.output.linear(&encoder.weight, Some(&decoder_bias)).unwrap();
        let loss = logits.reshape(&[-1, ntoken]).unwrap().cross_entropy(&y, Reduction::Mean).unwrap();
        loss.backward().unwrap();
        tc::nn::clip_grad_norm(&params, 0.25).unwrap();
        opt.step().unwrap();
        losses.push(loss.item().unwrap());
        h = Some(out.h_n.detach().unwrap());
        c = out.c_n.map(|t| t.detach().unwrap());
    }
    losses
}

#[test]
fn word_language_model_recipe_matches_torch_step_by_step() {
    let _tc = tc::init().unwrap();
    for (mode, want) in [(tc::nn::RnnMode::Lstm, WORD_LM_LSTM), (tc::nn::RnnMode::Gru, WORD_LM_GRU),
                         (tc::nn::RnnMode::Tanh, WORD_LM_RNN_TANH)] {
        let got = word_lm_losses(mode);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-9, "{mode:?}: got {got:?}, want {want:?}");
        }
    }
}

/// The word-language-model recipe's Transformer (embedding * sqrt(ninp),
/// sinusoidal positions, a post-norm encoder with the causal mask and a final
/// LayerNorm, an untied decoder, log_softmax + NLL), three SGD steps with
/// clipping, against PyTorch's losses for the same patterned weights and
/// tokens (the script's WORD_LM_TRANSFORMER section).
#[test]
fn word_language_model_transformer_matches_torch_step_by_step() {
    use tc::nn::{square_subsequent_mask, PositionalEncoding, TransformerEncoder};
    use tc::{Sgd, SgdOptions};
    let _tc = tc::init().unwrap();
    let f = DType::Float64;
    let (ntoken, ninp, nhead, nhid, bptt, batch) = (20i64, 8i64, 2i64, 16i64, 5i64, 2i64);
    let input_emb = Embedding::new(ntoken, ninp, f).unwrap();
    let encoder = TransformerEncoder::new(ninp, nhead, nhid, 0.0, 2, true, f).unwrap();
    let decoder = Linear::new(ninp, ntoken, true, f).unwrap();
    let pos = PositionalEncoding::new(ninp, 0.0, 50, f).unwrap();
    // PyTorch's named_parameters order: input_emb, encoder.layers.*, encoder.norm, decoder.
    let mut params = input_emb.parameters();
    params.extend(encoder.parameters());
    params.extend(decoder.parameters());
    assert_eq!(params.len(), 1 + 2 * 12 + 2 + 2);
    for (k, p) in params.iter().enumerate() {
        let shape = p.shape().unwrap();
        let n: i64 = shape.iter().product();
        let v: Vec<f64> = (0..n).map(|i| (i as f64 * (0.21 + 0.07 * k as f64) + 0.1 * k as f64).sin() / 3.0).collect();
        p.set_data(&Tensor::from_vec(v, &shape).unwrap()).unwrap();
    }
    let mut opt = Sgd::new(&params.iter().collect::<Vec<_>>(),
                           SgdOptions { lr: 1.0, momentum: 0.0, dampening: 0.0, weight_decay: 0.0, nesterov: false })
        .unwrap();
    let tokens: Vec<i64> = (0..batch * (3 * bptt + 1)).map(|i| (7 * i + 3) % ntoken).collect();
    let data = Tensor::from_vec(tokens, &[batch, 3 * bptt + 1]).unwrap().transpose(0, 1).unwrap().contiguous().unwrap();
    let mask = square_subsequent_mask(bptt, f).unwrap();
    let mut got = Vec::new();
    for i in (0..3 * bptt).step_by(bptt as usize) {
        let x = data.narrow(0, i, bptt).unwrap();
        let y = data.narrow(0, i + 1, bptt).unwrap().reshape(&[-1]).unwrap();
        opt.zero_grad().unwrap();
        let h = pos.forward(&input_emb.forward(&x).unwrap().mul_scalar((ninp as f64).sqrt()).unwrap()).unwrap();
        let logp = decoder.forward(&encoder.forward(&h, Some(&mask)).unwrap()).unwrap().log_softmax(-1).unwrap();
        let loss = logp.reshape(&[-1, ntoken]).unwrap().nll_loss(&y, Reduction::Mean).unwrap();
        loss.backward().unwrap();
        tc::nn::clip_grad_norm(&params, 0.25).unwrap();
        opt.step().unwrap();
        got.push(loss.item().unwrap());
    }
    for (g, w) in got.iter().zip(&WORD_LM_TRANSFORMER) {
        assert!((g - w).abs() < 1e-9, "transformer: got {got:?}, want {WORD_LM_TRANSFORMER:?}");
    }
    assert_ne!(got[0], got[2], "the steps change the model");
}

#[test]
fn multihead_attention_cross_attention_and_bad_heads() {
    use tc::nn::MultiheadAttention;
    let _tc = tc::init().unwrap();
    assert!(MultiheadAttention::new(6, 4, 0.0, DType::Float64).is_err());
    let mha = MultiheadAttention::new(4, 2, 0.0, DType::Float64).unwrap();
    // The packed projection of one tensor equals the three separate ones.
    let x = pat(0.37, 0.2, &[3, 2, 4]);
    let x2 = pat(0.37, 0.2, &[3, 2, 4]);
    let same = mha.forward(&x, &x, &x, None).unwrap().to_vec::<f64>().unwrap();
    let split = mha.forward(&x, &x2, &x2, None).unwrap().to_vec::<f64>().unwrap();
    for (a, b) in same.iter().zip(&split) {
        assert!((a - b).abs() < 1e-12);
    }
    let kv = pat(0.5, 0.1, &[5, 2, 4]);
    assert_eq!(mha.forward(&x, &kv, &kv, None).unwrap().shape().unwrap(), vec![3, 2, 4]);
}
