// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: NVMe in-band authentication, DH-HMAC-CHAP, the host's side. After
 * Connect, on the admin queue and on every I/O queue, and again at every
 * reconnect: negotiate (hash and DH group), the controller's challenge,
 * the host's reply, success 1 (with the controller's response when the
 * host asked to authenticate it too) and success 2. The key handling, the
 * DH groups and the augmented challenge are the kernel's nvme-auth
 * module's (CONFIG_NVME_AUTH); without it a secret is refused at connect.
 * Everything the controller sends is checked before it is used; keys and
 * secrets are never logged and are wiped when freed.
 */
#include <linux/slab.h>
#include <linux/random.h>

#include "nvme.h"

#if IS_ENABLED(CONFIG_NVME_AUTH)
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <crypto/kpp.h>
#include <linux/nvme-auth.h>

/* A message: the largest is a challenge or reply with an ffdhe8192 value. */
#define RBLK_AUTH_BUF_SIZE	4096
#define RBLK_AUTH_MAX_HASH	64	/* SHA-512 */
#define RBLK_AUTH_MAX_DH	1024	/* ffdhe8192 */

struct rblk_auth {
	struct nvme_dhchap_key	*host_key;	/* --dhchap-secret */
	struct nvme_dhchap_key	*ctrl_key;	/* --dhchap-ctrl-secret, or NULL */
	atomic_t		transaction;	/* T_ID of the next exchange */
};

/* One exchange on one queue. */
struct rblk_chap {
	struct rblk_ctrl	*ctrl;
	u16			qid;
	u16			tid;
	u8			hash_id;
	u8			dhgroup_id;
	size_t			hash_len;
	u32			s1;		/* the controller's sequence number */
	u32			s2;		/* ours, when bidirectional */
	u8			c1[RBLK_AUTH_MAX_HASH];
	u8			c2[RBLK_AUTH_MAX_HASH];
	u8			response[RBLK_AUTH_MAX_HASH];
	struct crypto_shash	*hmac_tfm;	/* the hash chosen, keyed per response */
	struct crypto_kpp	*dh_tfm;
	u8			*ctrl_pub;	/* the controller's DH value */
	size_t			ctrl_pub_len;
	u8			*host_pub;
	size_t			host_pub_len;
	u8			*sess_key;
	size_t			sess_key_len;
	u8			*buf;		/* RBLK_AUTH_BUF_SIZE */
	u8			failure;	/* NVME_AUTH_DHCHAP_FAILURE_* to send */
	const char		*reason;	/* for the user */
};

static const u8 rblk_auth_hashes[] = {
	NVME_AUTH_HASH_SHA256, NVME_AUTH_HASH_SHA384, NVME_AUTH_HASH_SHA512,
};

static const u8 rblk_auth_dhgroups[] = {
	NVME_AUTH_DHGROUP_NULL, NVME_AUTH_DHGROUP_2048, NVME_AUTH_DHGROUP_3072,
	NVME_AUTH_DHGROUP_4096, NVME_AUTH_DHGROUP_6144, NVME_AUTH_DHGROUP_8192,
};

/*
 * A secret as nvme-cli writes it, "DHHC-1:<hash>:<base64 of key + CRC>:",
 * read by nvme-auth as nvme-fabrics reads it. A transformation hash it
 * does not know would only fail at the first exchange: refused here.
 */
static struct nvme_dhchap_key *rblk_auth_parse(const char *secret)
{
	struct nvme_dhchap_key *key = NULL;
	char *copy;
	int ret;

	copy = kstrdup(secret, GFP_KERNEL);
	if (!copy)
		return ERR_PTR(-ENOMEM);
	ret = nvme_auth_generate_key((u8 *)copy, &key);
	kfree_sensitive(copy);
	if (ret)
		return ERR_PTR(ret);
	if (!key)
		return ERR_PTR(-EINVAL);
	if (key->hash && !nvme_auth_hmac_name(key->hash)) {
		nvme_auth_free_key(key);
		return ERR_PTR(-EINVAL);
	}
	return key;
}

int rblk_auth_check_secret(const char *secret)
{
	struct nvme_dhchap_key *key = rblk_auth_parse(secret);

	if (IS_ERR(key))
		return PTR_ERR(key);
	nvme_auth_free_key(key);
	return 0;
}

int rblk_auth_init(struct rblk_ctrl *ctrl)
{
	struct rblk_auth *auth;
	int ret;

	if (!ctrl->opts.dhchap_secret[0])
		return 0;
	auth = kzalloc(sizeof(*auth), GFP_KERNEL);
	if (!auth)
		return -ENOMEM;
	auth->host_key = rblk_auth_parse(ctrl->opts.dhchap_secret);
	if (IS_ERR(auth->host_key)) {
		ret = PTR_ERR(auth->host_key);
		kfree(auth);
		return ret;
	}
	if (ctrl->opts.dhchap_ctrl_secret[0]) {
		auth->ctrl_key = rblk_auth_parse(ctrl->opts.dhchap_ctrl_secret);
		if (IS_ERR(auth->ctrl_key)) {
			ret = PTR_ERR(auth->ctrl_key);
			nvme_auth_free_key(auth->host_key);
			kfree(auth);
			return ret;
		}
	}
	ctrl->auth = auth;
	return 0;
}

void rblk_auth_free(struct rblk_ctrl *ctrl)
{
	struct rblk_auth *auth = ctrl->auth;

	if (!auth)
		return;
	nvme_auth_free_key(auth->host_key);
	nvme_auth_free_key(auth->ctrl_key);
	kfree(auth);
	ctrl->auth = NULL;
}

static void rblk_chap_fail(struct rblk_chap *chap, u8 failure,
			   const char *reason)
{
	chap->failure = failure;
	chap->reason = reason;
}

/* The header every message starts with: auth_type, auth_id, rsvd, t_id. */
static void rblk_chap_header(struct rblk_chap *chap, u8 type, u8 id)
{
	memset(chap->buf, 0, RBLK_AUTH_BUF_SIZE);
	chap->buf[0] = type;
	chap->buf[1] = id;
	put_unaligned_le16(chap->tid, chap->buf + 4);
}

static int rblk_chap_send(struct rblk_chap *chap, size_t len)
{
	return rblk_auth_send(chap->ctrl, chap->qid, chap->buf, len);
}

/* A failure 1's explanation, for the user. */
static const char * const rblk_auth_refusals[] = {
	[NVME_AUTH_DHCHAP_FAILURE_NOT_USABLE] =
		"authentication failed: the controller cannot use DH-HMAC-CHAP for this host",
	[NVME_AUTH_DHCHAP_FAILURE_HASH_UNUSABLE] =
		"authentication failed: the controller takes none of the host's hash functions (SHA-256, SHA-384, SHA-512)",
	[NVME_AUTH_DHCHAP_FAILURE_DHGROUP_UNUSABLE] =
		"authentication failed: the controller takes none of the host's DH groups (null, ffdhe2048 to ffdhe8192)",
	[NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD] =
		"authentication failed: the controller found the host's message malformed",
	[NVME_AUTH_DHCHAP_FAILURE_INCORRECT_MESSAGE] =
		"authentication failed: the controller found the host's message malformed",
};

static const char rblk_auth_hung_up[] =
	"authentication failed: the controller hung up on the host's reply (check --dhchap-secret)";
static const char rblk_auth_cmd_refused[] =
	"authentication failed: the controller refused an authentication command";
static const char rblk_auth_rejected[] =
	"authentication failed: the controller rejected the host's reply (check --dhchap-secret)";

/*
 * A message from the controller: it must be of this exchange (T_ID) and
 * the one expected, or a failure 1, whose reason is kept.
 */
static int rblk_chap_receive(struct rblk_chap *chap, u8 id)
{
	struct nvmf_auth_dhchap_failure_data *fail = (void *)chap->buf;
	int ret;

	memset(chap->buf, 0, RBLK_AUTH_BUF_SIZE);
	ret = rblk_auth_receive(chap->ctrl, chap->qid, chap->buf,
				RBLK_AUTH_BUF_SIZE);
	if (ret)
		return ret;
	if (get_unaligned_le16(chap->buf + 4) != chap->tid) {
		rblk_chap_fail(chap, NVME_AUTH_DHCHAP_FAILURE_INCORRECT_MESSAGE,
			       "authentication failed: the controller answered another transaction");
		return -EPROTO;
	}
	if (chap->buf[1] == NVME_AUTH_DHCHAP_MESSAGE_FAILURE1) {
		u8 code = fail->rescode_exp;

		if (code < ARRAY_SIZE(rblk_auth_refusals) &&
		    rblk_auth_refusals[code])
			chap->reason = rblk_auth_refusals[code];
		else if (id == NVME_AUTH_DHCHAP_MESSAGE_SUCCESS1)
			chap->reason = rblk_auth_rejected;
		else
			chap->reason = "authentication failed: the controller refused";
		return -EKEYREJECTED;
	}
	if (chap->buf[0] != NVME_AUTH_DHCHAP_MESSAGES || chap->buf[1] != id) {
		rblk_chap_fail(chap, NVME_AUTH_DHCHAP_FAILURE_INCORRECT_MESSAGE,
			       "authentication failed: the controller sent an unexpected message");
		return -EPROTO;
	}
	return 0;
}

/* Negotiate: every hash and DH group, no secure channel. */
static int rblk_chap_negotiate(struct rblk_chap *chap)
{
	struct nvmf_auth_dhchap_negotiate_data *neg = (void *)chap->buf;
	struct nvmf_auth_dhchap_protocol_descriptor *d;
	size_t len = sizeof(*neg) + sizeof(*d);

	rblk_chap_header(chap, NVME_AUTH_COMMON_MESSAGES,
			 NVME_AUTH_DHCHAP_MESSAGE_NEGOTIATE);
	neg->sc_c = 0;
	neg->napd = 1;
	d = &neg->auth_protocol[0].dhchap;
	d->authid = NVME_AUTH_DHCHAP_AUTH_ID;
	d->halen = ARRAY_SIZE(rblk_auth_hashes);
	d->dhlen = ARRAY_SIZE(rblk_auth_dhgroups);
	memcpy(d->idlist, rblk_auth_hashes, sizeof(rblk_auth_hashes));
	/* DH group ids start at the list's 31st byte (the spec's layout). */
	memcpy(d->idlist + 30, rblk_auth_dhgroups, sizeof(rblk_auth_dhgroups));
	return rblk_chap_send(chap, len);
}

static bool rblk_auth_offered(const u8 *list, size_t n, u8 id)
{
	while (n--)
		if (list[n] == id)
			return true;
	return false;
}

/* The challenge: hash and group among ours, sizes that add up. */
static int rblk_chap_challenge(struct rblk_chap *chap)
{
	struct nvmf_auth_dhchap_challenge_data *ch = (void *)chap->buf;
	bool null_group;
	size_t dhvlen;
	int ret;

	ret = rblk_chap_receive(chap, NVME_AUTH_DHCHAP_MESSAGE_CHALLENGE);
	if (ret)
		return ret;
	if (!rblk_auth_offered(rblk_auth_hashes, ARRAY_SIZE(rblk_auth_hashes),
			       ch->hashid)) {
		rblk_chap_fail(chap, NVME_AUTH_DHCHAP_FAILURE_HASH_UNUSABLE,
			       "authentication failed: the controller chose a hash function the host did not offer");
		return -EPROTO;
	}
	if (!rblk_auth_offered(rblk_auth_dhgroups,
			       ARRAY_SIZE(rblk_auth_dhgroups), ch->dhgid)) {
		rblk_chap_fail(chap, NVME_AUTH_DHCHAP_FAILURE_DHGROUP_UNUSABLE,
			       "authentication failed: the controller chose a DH group the host did not offer");
		return -EPROTO;
	}
	chap->hash_id = ch->hashid;
	chap->dhgroup_id = ch->dhgid;
	chap->hash_len = nvme_auth_hmac_hash_len(ch->hashid);
	dhvlen = le16_to_cpu(ch->dhvlen);
	null_group = ch->dhgid == NVME_AUTH_DHGROUP_NULL;
	if (ch->hl != chap->hash_len || null_group != !dhvlen ||
	    dhvlen > RBLK_AUTH_MAX_DH ||
	    sizeof(*ch) + ch->hl + dhvlen > RBLK_AUTH_BUF_SIZE) {
		rblk_chap_fail(chap, NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD,
			       "authentication failed: the controller's challenge is malformed");
		return -EPROTO;
	}
	chap->s1 = le32_to_cpu(ch->seqnum);
	memcpy(chap->c1, ch->cval, chap->hash_len);
	chap->hmac_tfm = crypto_alloc_shash(nvme_auth_hmac_name(chap->hash_id),
					    0, 0);
	if (IS_ERR(chap->hmac_tfm)) {
		ret = PTR_ERR(chap->hmac_tfm);
		chap->hmac_tfm = NULL;
		rblk_chap_fail(chap, NVME_AUTH_DHCHAP_FAILURE_HASH_UNUSABLE,
			       "authentication failed: this kernel lacks the hash the controller chose");
		return ret;
	}
	if (!dhvlen)
		return 0;
	chap->ctrl_pub = kmemdup(ch->cval + ch->hl, dhvlen, GFP_KERNEL);
	if (!chap->ctrl_pub)
		return -ENOMEM;
	chap->ctrl_pub_len = dhvlen;
	return 0;
}

/* The DH exchange's values: ours, and the session key both derive. */
static int rblk_chap_dh(struct rblk_chap *chap)
{
	int ret;

	chap->dh_tfm = crypto_alloc_kpp(nvme_auth_dhgroup_kpp(chap->dhgroup_id),
					0, 0);
	if (IS_ERR(chap->dh_tfm)) {
		ret = PTR_ERR(chap->dh_tfm);
		chap->dh_tfm = NULL;
		rblk_chap_fail(chap, NVME_AUTH_DHCHAP_FAILURE_DHGROUP_UNUSABLE,
			       "authentication failed: this kernel lacks the DH group the controller chose");
		return ret;
	}
	ret = nvme_auth_gen_privkey(chap->dh_tfm, chap->dhgroup_id);
	if (ret)
		return ret;
	chap->host_pub_len = crypto_kpp_maxsize(chap->dh_tfm);
	chap->sess_key_len = chap->host_pub_len;
	chap->host_pub = kzalloc(chap->host_pub_len, GFP_KERNEL);
	chap->sess_key = kzalloc(chap->sess_key_len, GFP_KERNEL);
	if (!chap->host_pub || !chap->sess_key)
		return -ENOMEM;
	ret = nvme_auth_gen_pubkey(chap->dh_tfm, chap->host_pub,
				   chap->host_pub_len);
	if (ret)
		return ret;
	ret = nvme_auth_gen_shared_secret(chap->dh_tfm, chap->ctrl_pub,
					  chap->ctrl_pub_len, chap->sess_key,
					  chap->sess_key_len);
	if (ret)
		rblk_chap_fail(chap, NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD,
			       "authentication failed: the controller's DH value is not usable");
	return ret;
}

/*
 * HMAC(key transformed for @nqn, C' || seq || T_ID || SC_C || @role ||
 * @first || 0 || @second), C' the challenge augmented by the session key
 * when DH was used: the host's response (role "HostHost", key transformed
 * with its own NQN) or the controller's ("Controller", the subsystem's).
 */
static int rblk_chap_response(struct rblk_chap *chap,
			      struct nvme_dhchap_key *key, const char *nqn,
			      const u8 *challenge, u32 seq, const char *role,
			      const char *first, const char *second, u8 *out)
{
	struct crypto_shash *tfm = chap->hmac_tfm;
	struct nvme_dhchap_key *tkey;
	u8 aug[RBLK_AUTH_MAX_HASH];
	u8 word[4];
	int ret;

	tkey = nvme_auth_transform_key(key, (char *)nqn);
	if (IS_ERR(tkey))
		return PTR_ERR(tkey);
	if (chap->sess_key) {
		ret = nvme_auth_augmented_challenge(chap->hash_id,
						    chap->sess_key,
						    chap->sess_key_len,
						    (u8 *)challenge, aug,
						    chap->hash_len);
		if (ret)
			goto out_key;
		challenge = aug;
	}
	ret = crypto_shash_setkey(tfm, tkey->key, tkey->len);
	if (!ret) {
		SHASH_DESC_ON_STACK(desc, tfm);

		desc->tfm = tfm;
		put_unaligned_le32(seq, word);
		ret = crypto_shash_init(desc) ?:
		      crypto_shash_update(desc, challenge, chap->hash_len) ?:
		      crypto_shash_update(desc, word, 4);
		put_unaligned_le16(chap->tid, word);
		word[2] = 0;	/* SC_C: no secure channel */
		ret = ret ?:
		      crypto_shash_update(desc, word, 3) ?:
		      crypto_shash_update(desc, role, strlen(role)) ?:
		      crypto_shash_update(desc, first, strlen(first)) ?:
		      crypto_shash_update(desc, word + 2, 1) ?:
		      crypto_shash_update(desc, second, strlen(second)) ?:
		      crypto_shash_final(desc, out);
		shash_desc_zero(desc);
	}
	memzero_explicit(aug, sizeof(aug));
out_key:
	nvme_auth_free_key(tkey);
	return ret;
}

/* The reply: our response, our challenge if bidirectional, our DH value. */
static int rblk_chap_reply(struct rblk_chap *chap)
{
	struct nvmf_auth_dhchap_reply_data *r = (void *)chap->buf;
	struct rblk_ctrl *ctrl = chap->ctrl;
	struct rblk_auth *auth = ctrl->auth;
	u8 resp[RBLK_AUTH_MAX_HASH];
	size_t len;
	int ret;

	ret = rblk_chap_response(chap, auth->host_key, ctrl->opts.hostnqn,
				 chap->c1, chap->s1, "HostHost",
				 ctrl->opts.hostnqn, ctrl->opts.subnqn, resp);
	if (ret)
		return ret;
	len = sizeof(*r) + 2 * chap->hash_len + chap->host_pub_len;
	rblk_chap_header(chap, NVME_AUTH_DHCHAP_MESSAGES,
			 NVME_AUTH_DHCHAP_MESSAGE_REPLY);
	r->hl = chap->hash_len;
	r->dhvlen = cpu_to_le16(chap->host_pub_len);
	memcpy(r->rval, resp, chap->hash_len);
	memzero_explicit(resp, sizeof(resp));
	if (auth->ctrl_key) {
		get_random_bytes(chap->c2, chap->hash_len);
		chap->s2 = nvme_auth_get_seqnum();
		r->cvalid = 1;
		r->seqnum = cpu_to_le32(chap->s2);
		memcpy(r->rval + chap->hash_len, chap->c2, chap->hash_len);
		/* What the controller must answer, computed now. */
		ret = rblk_chap_response(chap, auth->ctrl_key,
					 ctrl->opts.subnqn, chap->c2, chap->s2,
					 "Controller", ctrl->opts.subnqn,
					 ctrl->opts.hostnqn, chap->response);
		if (ret)
			return ret;
	}
	if (chap->host_pub_len)
		memcpy(r->rval + 2 * chap->hash_len, chap->host_pub,
		       chap->host_pub_len);
	return rblk_chap_send(chap, len);
}

/* Success 1; with a controller key, its response must be ours. */
static int rblk_chap_success1(struct rblk_chap *chap)
{
	struct nvmf_auth_dhchap_success1_data *s = (void *)chap->buf;
	int ret;

	ret = rblk_chap_receive(chap, NVME_AUTH_DHCHAP_MESSAGE_SUCCESS1);
	/*
	 * nvmet tears the association down as it queues its failure 1, so
	 * the receive often meets the hang-up instead (6.12: "host response
	 * mismatch", then "fatal error").
	 */
	if (ret == -ECONNRESET && !chap->reason)
		chap->reason = rblk_auth_hung_up;
	if (ret)
		return ret;
	if (!chap->ctrl->auth->ctrl_key)
		return 0;
	if (s->hl != chap->hash_len || !s->rvalid) {
		rblk_chap_fail(chap, NVME_AUTH_DHCHAP_FAILURE_FAILED,
			       "authentication failed: the controller did not authenticate itself");
		return -EKEYREJECTED;
	}
	if (crypto_memneq(s->rval, chap->response, chap->hash_len)) {
		rblk_chap_fail(chap, NVME_AUTH_DHCHAP_FAILURE_FAILED,
			       "authentication failed: the controller's response does not match --dhchap-ctrl-secret");
		return -EKEYREJECTED;
	}
	rblk_chap_header(chap, NVME_AUTH_DHCHAP_MESSAGES,
			 NVME_AUTH_DHCHAP_MESSAGE_SUCCESS2);
	return rblk_chap_send(chap, sizeof(struct nvmf_auth_dhchap_success2_data));
}

/* What the host found wrong, told to the controller (failure 2). */
static void rblk_chap_failure2(struct rblk_chap *chap)
{
	struct nvmf_auth_dhchap_failure_data *f = (void *)chap->buf;

	rblk_chap_header(chap, NVME_AUTH_COMMON_MESSAGES,
			 NVME_AUTH_DHCHAP_MESSAGE_FAILURE2);
	f->rescode = NVME_AUTH_DHCHAP_FAILURE_REASON_FAILED;
	f->rescode_exp = chap->failure;
	rblk_chap_send(chap, sizeof(*f));
}

static void rblk_chap_free(struct rblk_chap *chap)
{
	if (chap->dh_tfm)
		crypto_free_kpp(chap->dh_tfm);
	if (chap->hmac_tfm)
		crypto_free_shash(chap->hmac_tfm);
	kfree_sensitive(chap->sess_key);
	kfree(chap->host_pub);
	kfree(chap->ctrl_pub);
	kfree_sensitive(chap->buf);
	memzero_explicit(chap, sizeof(*chap));
}

static int rblk_auth_exchange(struct rblk_chap *chap)
{
	int ret;

	ret = rblk_chap_negotiate(chap) ?:
	      rblk_chap_challenge(chap);
	if (!ret && chap->ctrl_pub)
		ret = rblk_chap_dh(chap);
	ret = ret ?:
	      rblk_chap_reply(chap) ?:
	      rblk_chap_success1(chap);
	if (ret && chap->failure)
		rblk_chap_failure2(chap);
	return ret;
}

int rblk_auth_queue(struct rblk_ctrl *ctrl, u16 qid, u32 connect_result,
		    struct netlink_ext_ack *extack)
{
	struct rblk_chap *chap;
	int ret;

	if (connect_result & NVME_CONNECT_AUTHREQ_ASCR) {
		NL_SET_ERR_MSG(extack,
			       "the subsystem requires a secure channel (TLS), which rblk does not support");
		return -EOPNOTSUPP;
	}
	if (!(connect_result & NVME_CONNECT_AUTHREQ_ATR))
		return 0;
	if (!ctrl->auth) {
		NL_SET_ERR_MSG(extack,
			       "the subsystem requires authentication: give the host's key (--dhchap-secret)");
		return -EKEYREJECTED;
	}
	chap = kzalloc(sizeof(*chap), GFP_KERNEL);
	if (!chap)
		return -ENOMEM;
	chap->buf = kmalloc(RBLK_AUTH_BUF_SIZE, GFP_KERNEL);
	if (!chap->buf) {
		kfree(chap);
		return -ENOMEM;
	}
	chap->ctrl = ctrl;
	chap->qid = qid;
	chap->tid = atomic_inc_return(&ctrl->auth->transaction);
	ret = rblk_auth_exchange(chap);
	if (ret) {
		const char *why = chap->reason;

		/* An NVMe status on Authentication Send or Receive. */
		if (!why && ret > 0)
			why = rblk_auth_cmd_refused;
		else if (!why)
			why = "authentication failed: no answer from the controller";
		dev_err(ctrl->dev, "qid %u: %s (%d)\n", qid, why, ret);
		rblk_set_err(extack, why);
		if (ret > 0)
			ret = -EKEYREJECTED;
	}
	rblk_chap_free(chap);
	kfree(chap);
	return ret;
}

#else /* !CONFIG_NVME_AUTH */

int rblk_auth_check_secret(const char *secret)
{
	return -EOPNOTSUPP;
}

int rblk_auth_init(struct rblk_ctrl *ctrl)
{
	return ctrl->opts.dhchap_secret[0] ? -EOPNOTSUPP : 0;
}

void rblk_auth_free(struct rblk_ctrl *ctrl)
{
}

int rblk_auth_queue(struct rblk_ctrl *ctrl, u16 qid, u32 connect_result,
		    struct netlink_ext_ack *extack)
{
	if (!(connect_result & (NVME_CONNECT_AUTHREQ_ATR |
				NVME_CONNECT_AUTHREQ_ASCR)))
		return 0;
	NL_SET_ERR_MSG(extack,
		       "the subsystem requires authentication, which needs a kernel with nvme-auth (CONFIG_NVME_AUTH)");
	return -EOPNOTSUPP;
}

#endif
