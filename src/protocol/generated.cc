// Anchor of the generated-codec library; the codecs are in protocol/generated/.
namespace samsa::protocol {
int generated_anchor = 0;
}  // namespace samsa::protocol
