"""Published test vectors: NIST SP 800-185's samples and RFC 9861's.

Inputs are generated from the publications' short patterns; expected outputs are transcribed
with their source named: "SP 800-185 <construction>_samples.pdf, Sample #n" (the NIST
Computer Security Resource Center's example files) and RFC 9861 section 5.

Where the values were copied from: pycryptodome's ``Crypto/SelfTest/Hash`` (test_KMAC.py,
test_TupleHash.py, test_TurboSHAKE.py, test_KangarooTwelve.py) for KMAC, TupleHash,
TurboSHAKE and KT128. The samples pycryptodome does not carry (ParallelHash and its XOF form,
TupleHashXOF, KT256) were taken from the test suites of Bouncy Castle
(ParallelHashTest.java, TupleHashTest.java) and noble-hashes, and each value was checked
against a second, independent suite before it was written here.
"""

from __future__ import annotations

import numpy as np
import pytest
import sp800_185_reference as ref

import batchkeccak as bk

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy


def ptn(n: int) -> bytes:
    """RFC 9861's ptn(n): the bytes 00 01 .. FA repeated, cut to n bytes (built by repeating
    the 251-byte run: a byte at a time, the 17**6-byte messages took most of a second)."""
    return (bytes(range(251)) * (n // 251 + 1))[:n]


SP_KEY = bytes(range(0x40, 0x60))  # the samples' key: 40 41 .. 5F
SP_SHORT = bytes(range(4))  # 00 01 02 03
SP_LONG = bytes(range(200))  # 00 01 .. C7
TAGGED = b"My Tagged Application"
TUPLE_APP = b"My Tuple App"
TUPLE_2 = [bytes.fromhex("000102"), bytes.fromhex("101112131415")]
TUPLE_3 = TUPLE_2 + [bytes.fromhex("202122232425262728")]
PARALLEL_24 = bytes.fromhex("000102030405060710111213141516172021222324252627")
# 00 01 .. 0B, 10 11 .. 1B, .. 50 51 .. 5B: the 72-byte message of samples #3 and #6
PARALLEL_72 = bytes(16 * row + column for row in range(6) for column in range(12))
PARALLEL_DATA = b"Parallel Data"

CSHAKE_SAMPLES = [
    # (sample, bits, data, N, S, expected)
    (
        1,
        128,
        SP_SHORT,
        b"",
        b"Email Signature",
        "c1c36925b6409a04f1b504fcbca9d82b4017277cb5ed2b2065fc1d3814d5aaf5",
    ),
    (
        2,
        128,
        SP_LONG,
        b"",
        b"Email Signature",
        "c5221d50e4f822d96a2e8881a961420f294b7b24fe3d2094baed2c6524cc166b",
    ),
    (
        3,
        256,
        SP_SHORT,
        b"",
        b"Email Signature",
        (
            "d008828e2b80ac9d2218ffee1d070c48b8e4c87bff32c9699d5b6896eee0edd1"
            "64020e2be0560858d9c00c037e34a96937c561a74c412bb4c746469527281c8c"
        ),
    ),
    (
        4,
        256,
        SP_LONG,
        b"",
        b"Email Signature",
        "07dc27b11e51fbac75bc7b3c1d983e8b4b85fb1defaf218912ac86430273091727f42b17ed1df63e8ec118f04b23633c1dfb1574c8fb55cb45da8e25afb092bb",
    ),
]

KMAC_SAMPLES = [
    # (sample, name, data, S, expected): SP 800-185 KMAC_samples.pdf / KMACXOF_samples.pdf
    (
        1,
        "kmac_128",
        SP_SHORT,
        b"",
        "e5780b0d3ea6f7d3a429c5706aa43a00fadbd7d49628839e3187243f456ee14e",
    ),
    (
        2,
        "kmac_128",
        SP_SHORT,
        TAGGED,
        "3b1fba963cd8b0b59e8c1a6d71888b7143651af8ba0a7070c0979e2811324aa5",
    ),
    (
        3,
        "kmac_128",
        SP_LONG,
        TAGGED,
        "1f5b4e6cca02209e0dcb5ca635b89a15e271ecc760071dfd805faa38f9729230",
    ),
    (
        4,
        "kmac_256",
        SP_SHORT,
        TAGGED,
        (
            "20c570c31346f703c9ac36c61c03cb64c3970d0cfc787e9b79599d273a68d2f7"
            "f69d4cc3de9d104a351689f27cf6f5951f0103f33f4f24871024d9c27773a8dd"
        ),
    ),
    (
        5,
        "kmac_256",
        SP_LONG,
        b"",
        (
            "75358cf39e41494e949707927cee0af20a3ff553904c86b08f21cc414bcfd691"
            "589d27cf5e15369cbbff8b9a4c2eb17800855d0235ff635da82533ec6b759b69"
        ),
    ),
    (
        6,
        "kmac_256",
        SP_LONG,
        TAGGED,
        (
            "b58618f71f92e1d56c1b8c55ddd7cd188b97b4ca4d99831eb2699a837da2e4d9"
            "70fbacfde50033aea585f1a2708510c32d07880801bd182898fe476876fc8965"
        ),
    ),
    (
        1,
        "kmac_xof_128",
        SP_SHORT,
        b"",
        "cd83740bbd92ccc8cf032b1481a0f4460e7ca9dd12b08a0c4031178bacd6ec35",
    ),
    (
        2,
        "kmac_xof_128",
        SP_SHORT,
        TAGGED,
        "31a44527b4ed9f5c6101d11de6d26f0620aa5c341def41299657fe9df1a3b16c",
    ),
    (
        3,
        "kmac_xof_128",
        SP_LONG,
        TAGGED,
        "47026c7cd793084aa0283c253ef658490c0db61438b8326fe9bddf281b83ae0f",
    ),
    (
        4,
        "kmac_xof_256",
        SP_SHORT,
        TAGGED,
        (
            "1755133f1534752aad0748f2c706fb5c784512cab835cd15676b16c0c6647fa9"
            "6faa7af634a0bf8ff6df39374fa00fad9a39e322a7c92065a64eb1fb0801eb2b"
        ),
    ),
    (
        5,
        "kmac_xof_256",
        SP_LONG,
        b"",
        (
            "ff7b171f1e8a2b24683eed37830ee797538ba8dc563f6da1e667391a75edc02c"
            "a633079f81ce12a25f45615ec89972031d18337331d24ceb8f8ca8e6a19fd98b"
        ),
    ),
    (
        6,
        "kmac_xof_256",
        SP_LONG,
        TAGGED,
        (
            "d5be731c954ed7732846bb59dbe3a8e30f83e77a4bff4459f2f1c2b4ecebb8ce"
            "67ba01c62e8ab8578d2d499bd1bb276768781190020a306a97de281dcc30305d"
        ),
    ),
]

TUPLEHASH_SAMPLES = [
    # (sample, name, tuple, S, expected): SP 800-185 TupleHash_samples.pdf / TupleHashXOF_samples.pdf
    (
        1,
        "tuplehash_128",
        TUPLE_2,
        b"",
        "c5d8786c1afb9b82111ab34b65b2c0048fa64e6d48e263264ce1707d3ffc8ed1",
    ),
    (
        2,
        "tuplehash_128",
        TUPLE_2,
        TUPLE_APP,
        "75cdb20ff4db1154e841d758e24160c54bae86eb8c13e7f5f40eb35588e96dfb",
    ),
    (
        3,
        "tuplehash_128",
        TUPLE_3,
        TUPLE_APP,
        "e60f202c89a2631eda8d4c588ca5fd07f39e5151998deccf973adb3804bb6e84",
    ),
    (
        4,
        "tuplehash_256",
        TUPLE_2,
        b"",
        (
            "cfb7058caca5e668f81a12a20a2195ce97a925f1dba3e7449a56f82201ec6073"
            "11ac2696b1ab5ea2352df1423bde7bd4bb78c9aed1a853c78672f9eb23bbe194"
        ),
    ),
    (
        5,
        "tuplehash_256",
        TUPLE_2,
        TUPLE_APP,
        (
            "147c2191d5ed7efd98dbd96d7ab5a11692576f5fe2a5065f3e33de6bba9f3aa1"
            "c4e9a068a289c61c95aab30aee1e410b0b607de3620e24a4e3bf9852a1d4367e"
        ),
    ),
    (
        6,
        "tuplehash_256",
        TUPLE_3,
        TUPLE_APP,
        (
            "45000be63f9b6bfd89f54717670f69a9bc763591a4f05c50d68891a744bcc6e7"
            "d6d5b5e82c018da999ed35b0bb49c9678e526abd8e85c13ed254021db9e790ce"
        ),
    ),
    (
        1,
        "tuplehash_xof_128",
        TUPLE_2,
        b"",
        "2f103cd7c32320353495c68de1a8129245c6325f6f2a3d608d92179c96e68488",
    ),
    (
        2,
        "tuplehash_xof_128",
        TUPLE_2,
        TUPLE_APP,
        "3fc8ad69453128292859a18b6c67d7ad85f01b32815e22ce839c49ec374e9b9a",
    ),
    (
        3,
        "tuplehash_xof_128",
        TUPLE_3,
        TUPLE_APP,
        "900fe16cad098d28e74d632ed852f99daab7f7df4d99e775657885b4bf76d6f8",
    ),
    (
        4,
        "tuplehash_xof_256",
        TUPLE_2,
        b"",
        (
            "03ded4610ed6450a1e3f8bc44951d14fbc384ab0efe57b000df6b6df5aae7cd5"
            "68e77377daf13f37ec75cf5fc598b6841d51dd207c991cd45d210ba60ac52eb9"
        ),
    ),
    (
        5,
        "tuplehash_xof_256",
        TUPLE_2,
        TUPLE_APP,
        (
            "6483cb3c9952eb20e830af4785851fc597ee3bf93bb7602c0ef6a65d741aeca7"
            "e63c3b128981aa05c6d27438c79d2754bb1b7191f125d6620fca12ce658b2442"
        ),
    ),
    (
        6,
        "tuplehash_xof_256",
        TUPLE_3,
        TUPLE_APP,
        (
            "0c59b11464f2336c34663ed51b2b950bec743610856f36c28d1d088d8a2446284"
            "dd09830a6a178dc752376199fae935d86cfdee5913d4922dfd369b66a53c897"
        ),
    ),
]

PARALLELHASH_SAMPLES = [
    # (sample, name, data, B, S, expected): SP 800-185 ParallelHash_samples.pdf and
    # ParallelHashXOF_samples.pdf
    (
        1,
        "parallelhash_128",
        PARALLEL_24,
        8,
        b"",
        "ba8dc1d1d979331d3f813603c67f72609ab5e44b94a0b8f9af46514454a2b4f5",
    ),
    (
        2,
        "parallelhash_128",
        PARALLEL_24,
        8,
        PARALLEL_DATA,
        "fc484dcb3f84dceedc353438151bee58157d6efed0445a81f165e495795b7206",
    ),
    (
        3,
        "parallelhash_128",
        PARALLEL_72,
        12,
        PARALLEL_DATA,
        "f7fd5312896c6685c828af7e2adb97e393e7f8d54e3c2ea4b95e5aca3796e8fc",
    ),
    (
        4,
        "parallelhash_256",
        PARALLEL_24,
        8,
        b"",
        (
            "bc1ef124da34495e948ead207dd9842235da432d2bbc54b4c110e64c45110553"
            "1b7f2a3e0ce055c02805e7c2de1fb746af97a1dd01f43b824e31b87612410429"
        ),
    ),
    (
        5,
        "parallelhash_256",
        PARALLEL_24,
        8,
        PARALLEL_DATA,
        (
            "cdf15289b54f6212b4bc270528b49526006dd9b54e2b6add1ef6900dda3963bb"
            "33a72491f236969ca8afaea29c682d47a393c065b38e29fae651a2091c833110"
        ),
    ),
    (
        6,
        "parallelhash_256",
        PARALLEL_72,
        12,
        PARALLEL_DATA,
        (
            "69d0fcb764ea055dd09334bc6021cb7e4b61348dff375da262671cdec3effa8d"
            "1b4568a6cce16b1cad946ddde27f6ce2b8dee4cd1b24851ebf00eb90d43813e9"
        ),
    ),
    (
        1,
        "parallelhash_xof_128",
        PARALLEL_24,
        8,
        b"",
        "fe47d661e49ffe5b7d999922c062356750caf552985b8e8ce6667f2727c3c8d3",
    ),
    (
        2,
        "parallelhash_xof_128",
        PARALLEL_24,
        8,
        PARALLEL_DATA,
        "ea2a793140820f7a128b8eb70a9439f93257c6e6e79b4a540d291d6dae7098d7",
    ),
    (
        3,
        "parallelhash_xof_128",
        PARALLEL_72,
        12,
        PARALLEL_DATA,
        "0127ad9772ab904691987fcc4a24888f341fa0db2145e872d4efd255376602f0",
    ),
    (
        4,
        "parallelhash_xof_256",
        PARALLEL_24,
        8,
        b"",
        (
            "c10a052722614684144d28474850b410757e3cba87651ba167a5cbddff7f4666"
            "75fbf84bcae7378ac444be681d729499afca667fb879348bfdda427863c82f1c"
        ),
    ),
    (
        5,
        "parallelhash_xof_256",
        PARALLEL_24,
        8,
        PARALLEL_DATA,
        (
            "538e105f1a22f44ed2f5cc1674fbd40be803d9c99bf5f8d90a2c8193f3fe6ea7"
            "68e5c1a20987e2c9c65febed03887a51d35624ed12377594b5585541dc377efc"
        ),
    ),
    (
        6,
        "parallelhash_xof_256",
        PARALLEL_72,
        12,
        PARALLEL_DATA,
        (
            "6b3e790b330c889a204c2fbc728d809f19367328d852f4002dc829f73afd6bce"
            "fb7fe5b607b13a801c0be5c1170bdb794e339458fdb0e62a6af3d42558970249"
        ),
    ),
]

RFC9861_VECTORS = [
    # (function, message (pattern, n), ptn(len) customization, domain, output bytes,
    #  bytes compared at the end (None: all), expected), RFC 9861 section 5
    (
        "turboshake128",
        ("ptn", 0),
        0,
        None,
        32,
        None,
        "1e415f1c5983aff2169217277d17bb538cd945a397ddec541f1ce41af2c1b74c",
    ),  # zero_1
    (
        "turboshake128",
        ("ptn", 0),
        0,
        None,
        64,
        None,
        "1e415f1c5983aff2169217277d17bb538cd945a397ddec541f1ce41af2c1b74c3e8ccae2a4dae56c84a04c2385c03c15e8193bdf58737363321691c05462c8df",
    ),  # zero_2
    (
        "turboshake128",
        ("ptn", 0),
        0,
        None,
        10032,
        32,
        "a3b9b0385900ce761f22aed548e754da10a5242d62e8c658e3f3a923a7555607",
    ),  # zero_3
    (
        "turboshake128",
        ("ptn", 1),
        0,
        None,
        32,
        None,
        "55cedd6f60af7bb29a4042ae832ef3f58db7299f893ebb9247247d856958daa9",
    ),  # ptn_1
    (
        "turboshake128",
        ("ptn", 17),
        0,
        None,
        32,
        None,
        "9c97d036a3bac819db70ede0ca554ec6e4c2a1a4ffbfd9ec269ca6a111161233",
    ),  # ptn_17
    (
        "turboshake128",
        ("ptn", 289),
        0,
        None,
        32,
        None,
        "96c77c279e0126f7fc07c9b07f5cdae1e0be60bdbe10620040e75d7223a624d2",
    ),  # ptn_17_2
    (
        "turboshake128",
        ("ptn", 4913),
        0,
        None,
        32,
        None,
        "d4976eb56bcf118520582b709f73e1d6853e001fdaf80e1b13e0d0599d5fb372",
    ),  # ptn_17_3
    (
        "turboshake128",
        ("ptn", 83521),
        0,
        None,
        32,
        None,
        "da67c7039e98bf530cf7a37830c6664e14cbab7f540f58403b1b82951318ee5c",
    ),  # ptn_17_4
    (
        "turboshake128",
        ("ptn", 1419857),
        0,
        None,
        32,
        None,
        "b97a906fbf83ef7c812517abf3b2d0aea0c4f60318ce11cf103925127f59eecd",
    ),  # ptn_17_5
    (
        "turboshake128",
        ("ptn", 24137569),
        0,
        None,
        32,
        None,
        "35cd494adeded2f25239af09a7b8ef0c4d1ca4fe2d1ac370fa63216fe7b4c2b1",
    ),  # ptn_17_6
    (
        "turboshake128",
        ("ff", 3),
        0,
        1,
        32,
        None,
        "bf323f940494e88ee1c540fe660be8a0c93f43d15ec006998462fa994eed5dab",
    ),  # ffffff_d01
    (
        "turboshake128",
        ("ff", 1),
        0,
        6,
        32,
        None,
        "8ec9c66465ed0d4a6c35d13506718d687a25cb05c74cca1e42501abd83874a67",
    ),  # ff_d06
    (
        "turboshake128",
        ("ff", 3),
        0,
        7,
        32,
        None,
        "b658576001cad9b1e5f399a9f77723bba05458042d68206f7252682dba3663ed",
    ),  # ffffff_d07
    (
        "turboshake128",
        ("ff", 7),
        0,
        11,
        32,
        None,
        "8deeaa1aec47ccee569f659c21dfa8e112db3cee37b18178b2acd805b799cc37",
    ),  # ffffffffffff_d0b
    (
        "turboshake128",
        ("ff", 1),
        0,
        48,
        32,
        None,
        "553122e2135e363c3292bed2c6421fa232bab03daa07c7d6636603286506325b",
    ),  # ff_d30
    (
        "turboshake128",
        ("ff", 3),
        0,
        127,
        32,
        None,
        "16274cc656d44cefd422395d0f9053bda6d28e122aba15c765e5ad0e6eaf26f9",
    ),  # ffffff_d7f
    (
        "turboshake256",
        ("ptn", 0),
        0,
        None,
        64,
        None,
        "367a329dafea871c7802ec67f905ae13c57695dc2c6663c61035f59a18f8e7db11edc0e12e91ea60eb6b32df06dd7f002fbafabb6e13ec1cc20d995547600db0",
    ),  # zero_1
    (
        "turboshake256",
        ("ptn", 0),
        0,
        None,
        10032,
        32,
        "abefa11630c661269249742685ec082f207265dccf2f43534e9c61ba0c9d1d75",
    ),  # zero_2
    (
        "turboshake256",
        ("ptn", 1),
        0,
        None,
        64,
        None,
        "3e1712f928f8eaf1054632b2aa0a246ed8b0c378728f60bc970410155c28820e90cc90d8a3006aa2372c5c5ea176b0682bf22bae7467ac94f74d43d39b0482e2",
    ),  # ptn_1
    (
        "turboshake256",
        ("ptn", 17),
        0,
        None,
        64,
        None,
        "b3bab0300e6a191fbe6137939835923578794ea54843f5011090fa2f3780a9e5cb22c59d78b40a0fbff9e672c0fbe0970bd2c845091c6044d687054da5d8e9c7",
    ),  # ptn_17
    (
        "turboshake256",
        ("ptn", 289),
        0,
        None,
        64,
        None,
        "66b810db8e90780424c0847372fdc95710882fde31c6df75beb9d4cd9305cfcae35e7b83e8b7e6eb4b78605880116316fe2c078a09b94ad7b8213c0a738b65c0",
    ),  # ptn_17_2
    (
        "turboshake256",
        ("ptn", 4913),
        0,
        None,
        64,
        None,
        "c74ebc919a5b3b0dd1228185ba02d29ef442d69d3d4276a93efe0bf9a16a7dc0cd4eabadab8cd7a5edd96695f5d360abe09e2c6511a3ec397da3b76b9e1674fb",
    ),  # ptn_17_3
    (
        "turboshake256",
        ("ptn", 83521),
        0,
        None,
        64,
        None,
        "02cc3a8897e6f4f6ccb6fd46631b1f5207b66c6de9c7b55b2d1a23134a170afdac234eaba9a77cff88c1f020b73724618c5687b362c430b248cd38647f848a1d",
    ),  # ptn_17_4
    (
        "turboshake256",
        ("ptn", 1419857),
        0,
        None,
        64,
        None,
        "add53b06543e584b5823f626996aee50fe45ed15f20243a7165485acb4aa76b4ffda75cedf6d8cdc95c332bd56f4b986b58bb17d1778bfc1b1a97545cdf4ec9f",
    ),  # ptn_17_5
    (
        "turboshake256",
        ("ptn", 24137569),
        0,
        None,
        64,
        None,
        "9e11bc59c24e73993c1484ec66358ef71db74aefd84e123f7800ba9c4853e02cfe701d9e6bb765a304f0dc34a4ee3ba82c410f0da70e86bfbd90ea877c2d6104",
    ),  # ptn_17_6
    (
        "turboshake256",
        ("ff", 3),
        0,
        1,
        64,
        None,
        "d21c6fbbf587fa2282f29aea620175fb0257413af78a0b1b2a87419ce031d933ae7a4d383327a8a17641a34f8a1d1003ad7da6b72dba84bb62fef28f62f12424",
    ),  # ffffff_d01
    (
        "turboshake256",
        ("ff", 1),
        0,
        6,
        64,
        None,
        "738d7b4e37d18b7f22ad1b5313e357e3dd7d07056a26a303c433fa3533455280f4f5a7d4f700efb437fe6d281405e07be32a0a972e22e63adc1b090daefe004b",
    ),  # ff_d06
    (
        "turboshake256",
        ("ff", 3),
        0,
        7,
        64,
        None,
        "18b3b5b7061c2e67c1753a00e6ad7ed7ba1c906cf93efb7092eaf27fbeebb755ae6e292493c110e48d260028492b8e09b5500612b8f2578985ded5357d00ec67",
    ),  # ffffff_d07
    (
        "turboshake256",
        ("ff", 7),
        0,
        11,
        64,
        None,
        "bb36764951ec97e9d85f7ee9a67a7718fc005cf42556be79ce12c0bde50e5736d6632b0d0dfb202d1bbb8ffe3dd74cb00834fa756cb03471bab13a1e2c16b3c0",
    ),  # ffffffffffff_d0b
    (
        "turboshake256",
        ("ff", 1),
        0,
        48,
        64,
        None,
        "f3fe12873d34bcbb2e608779d6b70e7f86bec7e90bf113cbd4fdd0c4e2f4625e148dd7ee1a52776cf77f240514d9ccfc3b5ddab8ee255e39ee389072962c111a",
    ),  # ff_d30
    (
        "turboshake256",
        ("ff", 3),
        0,
        127,
        64,
        None,
        "abe569c1f77ec340f02705e7d37c9ab7e155516e4a6a150021d70b6fac0bb40c069f9a9828a0d575cd99f9bae435ab1acf7ed9110ba97ce0388d074bac768776",
    ),  # ffffff_d7f
    (
        "kt128",
        ("ptn", 0),
        0,
        None,
        32,
        None,
        "1ac2d450fc3b4205d19da7bfca1b37513c0803577ac7167f06fe2ce1f0ef39e5",
    ),  # zero_1
    (
        "kt128",
        ("ptn", 0),
        0,
        None,
        64,
        None,
        "1ac2d450fc3b4205d19da7bfca1b37513c0803577ac7167f06fe2ce1f0ef39e54269c056b8c82e48276038b6d292966cc07a3d4645272e31ff38508139eb0a71",
    ),  # zero_2
    (
        "kt128",
        ("ptn", 0),
        0,
        None,
        10032,
        32,
        "e8dc563642f7228c84684c898405d3a834799158c079b12880277a1d28e2ff6d",
    ),  # zero_3
    (
        "kt128",
        ("ptn", 1),
        0,
        None,
        32,
        None,
        "2bda92450e8b147f8a7cb629e784a058efca7cf7d8218e02d345dfaa65244a1f",
    ),  # ptn_1
    (
        "kt128",
        ("ptn", 17),
        0,
        None,
        32,
        None,
        "6bf75fa2239198db4772e36478f8e19b0f371205f6a9a93a273f51df37122888",
    ),  # ptn_17
    (
        "kt128",
        ("ptn", 289),
        0,
        None,
        32,
        None,
        "0c315ebcdedbf61426de7dcf8fb725d1e74675d7f5327a5067f367b108ecb67c",
    ),  # ptn_17_2
    (
        "kt128",
        ("ptn", 4913),
        0,
        None,
        32,
        None,
        "cb552e2ec77d9910701d578b457ddf772c12e322e4ee7fe417f92c758f0d59d0",
    ),  # ptn_17_3
    (
        "kt128",
        ("ptn", 83521),
        0,
        None,
        32,
        None,
        "8701045e22205345ff4dda05555cbb5c3af1a771c2b89baef37db43d9998b9fe",
    ),  # ptn_17_4
    (
        "kt128",
        ("ptn", 1419857),
        0,
        None,
        32,
        None,
        "844d610933b1b9963cbdeb5ae3b6b05cc7cbd67ceedf883eb678a0a8e0371682",
    ),  # ptn_17_5
    (
        "kt128",
        ("ptn", 24137569),
        0,
        None,
        32,
        None,
        "3c390782a8a4e89fa6367f72feaaf13255c8d95878481d3cd8ce85f58e880af8",
    ),  # ptn_17_6
    (
        "kt128",
        ("ptn", 0),
        1,
        None,
        32,
        None,
        "fab658db63e94a246188bf7af69a133045f46ee984c56e3c3328caaf1aa1a583",
    ),  # ptn_c_1
    (
        "kt128",
        ("ff", 1),
        41,
        None,
        32,
        None,
        "d848c5068ced736f4462159b9867fd4c20b808acc3d5bc48e0b06ba0a3762ec4",
    ),  # ptn_c_41
    (
        "kt128",
        ("ff", 3),
        1681,
        None,
        32,
        None,
        "c389e5009ae57120854c2e8c64670ac01358cf4c1baf89447a724234dc7ced74",
    ),  # ptn_c_41_2
    (
        "kt128",
        ("ff", 7),
        68921,
        None,
        32,
        None,
        "75d2f86a2e644566726b4fbcfc5657b9dbcf070c7b0dca06450ab291d7443bcf",
    ),  # ptn_c_41_3
    (
        "kt128",
        ("ptn", 8191),
        0,
        None,
        32,
        None,
        "1b577636f723643e990cc7d6a659837436fd6a103626600eb8301cd1dbe553d6",
    ),  # ptn_8191
    (
        "kt128",
        ("ptn", 8192),
        0,
        None,
        32,
        None,
        "48f256f6772f9edfb6a8b661ec92dc93b95ebd05a08a17b39ae3490870c926c3",
    ),  # ptn_8192
    (
        "kt128",
        ("ptn", 8192),
        8189,
        None,
        32,
        None,
        "3ed12f70fb05ddb58689510ab3e4d23c6c6033849aa01e1d8c220a297fedcd0b",
    ),  # ptn_8192_8189
    (
        "kt128",
        ("ptn", 8192),
        8190,
        None,
        32,
        None,
        "6a7c1b6a5cd0d8c9ca943a4a216cc64604559a2ea45f78570a15253d67ba00ae",
    ),  # ptn_8192_8190
    (
        "kt256",
        ("ptn", 0),
        0,
        None,
        64,
        None,
        "b23d2e9cea9f4904e02bec06817fc10ce38ce8e93ef4c89e6537076af8646404e3e8b68107b8833a5d30490aa33482353fd4adc7148ecb782855003aaebde4a9",
    ),  # zero_1
    (
        "kt256",
        ("ptn", 0),
        0,
        None,
        128,
        None,
        "b23d2e9cea9f4904e02bec06817fc10ce38ce8e93ef4c89e6537076af8646404e3e8b68107b8833a5d30490aa33482353fd4adc7148ecb782855003aaebde4a9b0925319d8ea1e121a609821ec19efea89e6d08daee1662b69c840289f188ba860f55760b61f82114c030c97e5178449608ccd2cd2d919fc7829ff69931ac4d0",
    ),  # zero_2
    (
        "kt256",
        ("ptn", 0),
        0,
        None,
        10064,
        64,
        "ad4a1d718cf950506709a4c33396139b4449041fc79a05d68da35f1e453522e056c64fe94958e7085f2964888259b9932752f3ccd855288efee5fcbb8b563069",
    ),  # zero_3
    (
        "kt256",
        ("ptn", 1),
        0,
        None,
        64,
        None,
        "0d005a194085360217128cf17f91e1f71314efa5564539d444912e3437efa17f82db6f6ffe76e781eaa068bce01f2bbf81eacb983d7230f2fb02834a21b1ddd0",
    ),  # ptn_1
    (
        "kt256",
        ("ptn", 17),
        0,
        None,
        64,
        None,
        "1ba3c02b1fc514474f06c8979978a9056c8483f4a1b63d0dccefe3a28a2f323e1cdcca40ebf006ac76ef0397152346837b1277d3e7faa9c9653b19075098527b",
    ),  # ptn_17
    (
        "kt256",
        ("ptn", 289),
        0,
        None,
        64,
        None,
        "de8ccbc63e0f133ebb4416814d4c66f691bbf8b6a61ec0a7700f836b086cb029d54f12ac7159472c72db118c35b4e6aa213c6562caaa9dcc518959e69b10f3ba",
    ),  # ptn_17_2
    (
        "kt256",
        ("ptn", 4913),
        0,
        None,
        64,
        None,
        "647efb49fe9d717500171b41e7f11bd491544443209997ce1c2530d15eb1ffbb598935ef954528ffc152b1e4d731ee2683680674365cd191d562bae753b84aa5",
    ),  # ptn_17_3
    (
        "kt256",
        ("ptn", 83521),
        0,
        None,
        64,
        None,
        "b06275d284cd1cf205bcbe57dccd3ec1ff6686e3ed15776383e1f2fa3c6ac8f08bf8a162829db1a44b2a43ff83dd89c3cf1ceb61ede659766d5ccf817a62ba8d",
    ),  # ptn_17_4
    (
        "kt256",
        ("ptn", 1419857),
        0,
        None,
        64,
        None,
        "9473831d76a4c7bf77ace45b59f1458b1673d64bcd877a7c66b2664aa6dd149e60eab71b5c2bab858c074ded81ddce2b4022b5215935c0d4d19bf511aeeb0772",
    ),  # ptn_17_5
    (
        "kt256",
        ("ptn", 24137569),
        0,
        None,
        64,
        None,
        "0652b740d78c5e1f7c8dcc1777097382768b7ff38f9a7a20f29f413bb1b3045b31a5578f568f911e09cf44746da84224a5266e96a4a535e871324e4f9c7004da",
    ),  # ptn_17_6
    (
        "kt256",
        ("ptn", 0),
        1,
        None,
        64,
        None,
        "9280f5cc39b54a5a594ec63de0bb99371e4609d44bf845c2f5b8c316d72b159811f748f23e3fabbe5c3226ec96c62186df2d33e9df74c5069ceecbb4dd10eff6",
    ),  # ptn_c_1
    (
        "kt256",
        ("ff", 1),
        41,
        None,
        64,
        None,
        "47ef96dd616f200937aa7847e34ec2feae8087e3761dc0f8c1a154f51dc9ccf845d7adbce57ff64b639722c6a1672e3bf5372d87e00aff89be97240756998853",
    ),  # ptn_c_41
    (
        "kt256",
        ("ff", 3),
        1681,
        None,
        64,
        None,
        "3b48667a5051c5966c53c5d42b95de451e05584e7806e2fb765eda959074172cb438a9e91dde337c98e9c41bed94c4e0aef431d0b64ef2324f7932caa6f54969",
    ),  # ptn_c_41_2
    (
        "kt256",
        ("ff", 7),
        68921,
        None,
        64,
        None,
        "e0911cc00025e1540831e266d94add9b98712142b80d2629e643aac4efaf5a3a30a88cbf4ac2a91a2432743054fbcc9897670e86ba8cec2fc2ace9c966369724",
    ),  # ptn_c_41_3
    (
        "kt256",
        ("ptn", 8191),
        0,
        None,
        64,
        None,
        "3081434d93a4108d8d8a3305b89682cebedc7ca4ea8a3ce869fbb73cbe4a58eef6f24de38ffc170514c70e7ab2d01f03812616e863d769afb3753193ba045b20",
    ),  # ptn_8191
    (
        "kt256",
        ("ptn", 8192),
        0,
        None,
        64,
        None,
        "c6ee8e2ad3200c018ac87aaa031cdac22121b412d07dc6e0dccbb53423747e9a1c18834d99df596cf0cf4b8dfafb7bf02d139d0c9035725adc1a01b7230a41fa",
    ),  # ptn_8192
    (
        "kt256",
        ("ptn", 8192),
        8189,
        None,
        64,
        None,
        "74e47879f10a9c5d11bd2da7e194fe57e86378bf3c3f7448eff3c576a0f18c5caae0999979512090a7f348af4260d4de3c37f1ecaf8d2c2c96c1d16c64b12496",
    ),  # ptn_8192_8189
    (
        "kt256",
        ("ptn", 8192),
        8190,
        None,
        64,
        None,
        "f4b5908b929ffe01e0f79ec2f21243d41a396b2e7303a6af1d6399cd6c7a0a2dd7c4f607e8277f9c9b1cb4ab9ddc59d4b92d1fc7558441f1832c3279a4241b8b",
    ),  # ptn_8192_8190
]


@pytest.mark.parametrize("sample,bits,data,function_name,custom,expected", CSHAKE_SAMPLES)
def test_cshake_samples(sample, bits, data, function_name, custom, expected):
    got = bk.hash_many(
        [data],
        f"cshake_{bits}",
        length=len(expected) // 2,
        customization=custom,
        function_name=function_name,
    )
    assert got[0].tobytes().hex() == expected
    assert ref.cshake(bits, data, len(expected) // 2, function_name, custom).hex() == expected


@pytest.mark.parametrize("sample,name,data,custom,expected", KMAC_SAMPLES)
def test_kmac_samples(sample, name, data, custom, expected):
    got = bk.hash_many(
        [data, data], name, key=SP_KEY, length=len(expected) // 2, customization=custom
    )
    assert got[0].tobytes().hex() == expected and got[1].tobytes().hex() == expected


@pytest.mark.parametrize("sample,name,items,custom,expected", TUPLEHASH_SAMPLES)
def test_tuplehash_samples(sample, name, items, custom, expected):
    got = bk.tuplehash_many([items], name, length=len(expected) // 2, customization=custom)
    assert got[0].tobytes().hex() == expected


@pytest.mark.parametrize("sample,name,data,block_size,custom,expected", PARALLELHASH_SAMPLES)
def test_parallelhash_samples(sample, name, data, block_size, custom, expected):
    length = len(expected) // 2
    params = {"block_size": block_size, "length": length, "customization": custom}
    one_message = getattr(bk, name)
    assert one_message(data, **params).hex() == expected
    got = bk.hash_many([data, data[:block_size]], name, **params)
    assert got[0].tobytes().hex() == expected
    bits = int(name[-3:])
    assert (
        ref.parallelhash(bits, data, block_size, length, custom, xof="xof" in name).hex()
        == expected
    )


def _rfc_message(spec):
    pattern, n = spec
    return ptn(n) if pattern == "ptn" else b"\xff" * n


@pytest.mark.parametrize(
    "function,message,custom,domain,length,tail,expected",
    [
        pytest.param(*v, marks=pytest.mark.slow) if v[1][1] > 2_000_000 else v
        for v in RFC9861_VECTORS
    ],
)
def test_rfc9861_vectors(function, message, custom, domain, length, tail, expected):
    data = _rfc_message(message)
    if function.startswith("turboshake"):
        params = {} if domain is None else {"domain": domain}
        got = bk.hash_many([data], function, length=length, **params)[0].tobytes()
    else:
        got = getattr(bk, function)(data, customization=ptn(custom), length=length)
        batch = bk.hash_many([data, b""], function, length=length, customization=ptn(custom))
        assert batch[0].tobytes() == got
        # A one-message list once went to TurboSHAKE without C || length_encode(|C|).
        for single in ([data], (data,)):
            alone = bk.hash_many(single, function, length=length, customization=ptn(custom))
            assert alone[0].tobytes() == got
    if tail is not None:
        got = got[-tail:]
    assert got.hex() == expected


def test_kt256_reference_model_agrees():
    for n, custom in ((1, 0), (17**3, 0), (8191, 0), (8192, 0), (17**4, 41), (0, 41**2)):
        want = ref.kangarootwelve(256, ptn(n), ptn(custom), 64)
        assert bk.kt256(ptn(n), customization=ptn(custom), length=64) == want, (n, custom)


def test_one_message_inputs_agree(tmp_path):
    data = ptn(3 * 8192 + 17)
    want = ref.kangarootwelve(128, data, b"C", 32)
    path = tmp_path / "message.bin"
    path.write_bytes(data)
    forms = [
        data,
        bytearray(data),
        memoryview(data),
        np.frombuffer(data, np.uint8),
        path,
        str(path),
    ]
    for form in forms:
        assert bk.kt128(form, customization=b"C") == want, type(form).__name__
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    assert bk.kt128(empty) == ref.kangarootwelve(128, b"", b"", 32)
    assert bk.parallelhash_256(path, block_size=1000, length=40) == ref.parallelhash(
        256, data, 1000, 40, b""
    )
